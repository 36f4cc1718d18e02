"""Shards leaving (reference shard-lifecycle.md §1-3): one RemoveShard per shard the policy
removes and the cluster has, at the step the server needs next, with what it still holds
and what stands in the way (blockers); and the moves of its unsharded data (moveCollection
on 8.0+, movePrimary) to the least-loaded shard that stays. Pure: the instant is an input.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Set
from dataclasses import dataclass

from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.model.drain_blockers import Stranded, WallClock, drain_blockers
from zonectl.model.shard_lifecycle import Blocker, ShardDrain
from zonectl.plan.data_ops import MoveCollection
from zonectl.plan.op_base import Op, plural
from zonectl.plan.ranges import Problems
from zonectl.plan.shard_ops import MovePrimary, RemovalStep, RemoveShard
from zonectl.time_zones import load_time_zone

COMMANDS_SINCE = (8, 3)  # startShardDraining, shardDrainingStatus, commitShardRemoval
NEW_COMMANDS: Mapping[RemovalStep, str] = {
    "start": "startShardDraining",
    "continue": "shardDrainingStatus",
    "commit": "commitShardRemoval",
}
MOVE_COLLECTION_SINCE = (8, 0)


@dataclass(frozen=True)
class Removal:
    """What the planner knows about the shards that stay and leave."""

    gone: frozenset[str]  # removed by the policy, present in the cluster
    staying: frozenset[str]  # every other shard once the plan ran (those it adds too)
    recipients: frozenset[str]  # present, staying, not draining once the join stage ran
    zones_after: Mapping[str, set[str]]  # zone -> shards carrying it once the plan ran
    zone_in_use: Mapping[str, Mapping[str, str]]  # shard -> zone -> where its ranges are


def drain_of(actual: ClusterState, shard: str) -> ShardDrain:
    live = actual.shard(shard)
    default = ShardDrain(shard, draining=bool(live and live.draining))
    return actual.drains.get(shard, default)


def step_of(drain: ShardDrain) -> RemovalStep:
    """start: not draining; commit: draining, nothing left and no orphans; else continue."""
    if not drain.draining:
        return "start"
    return "commit" if drain.empty and not drain.orphan_docs else "continue"


def command_name(step: RemovalStep, features: tuple[int, int]) -> str:
    return NEW_COMMANDS[step] if features >= COMMANDS_SINCE else "removeShard"


def relocation_ops(
    actual: ClusterState, removal: Removal, load: dict[str, int], moved: Set[str]
) -> list[Op]:
    """moveCollection (8.0+) for each unsharded collection on a removed shard that no pin
    already moves, then movePrimary for each database whose primary it is; each to the
    least-loaded recipient (ties by name), booked on its load."""
    ops: list[Op] = []
    if not removal.recipients:
        return ops  # the last-shard blocker says why
    primaries: list[Op] = []
    for shard in sorted(removal.gone):
        drain = drain_of(actual, shard)
        if actual.features >= MOVE_COLLECTION_SINCE:
            for ns in drain.unsharded:
                if ns not in moved:
                    ops.append(MoveCollection(ns, _least_loaded(removal, load), shard, ""))
        for db in drain.databases:
            primaries.append(MovePrimary(db, _least_loaded(removal, load), shard))
    return [*ops, *primaries]


def _least_loaded(removal: Removal, load: dict[str, int]) -> str:
    target = min(sorted(removal.recipients), key=lambda s: load.get(s, 0))
    load[target] = load.get(target, 0) + 1
    return target


def removal_ops(
    desired: DesiredState, actual: ClusterState, removal: Removal, at: dt.datetime
) -> list[Op]:
    """One RemoveShard per removed shard the cluster has, by name."""
    ops: list[Op] = []
    for shard in sorted(removal.gone):
        drain = drain_of(actual, shard)
        step = step_of(drain)
        blockers = (
            *_refusals(actual, removal, shard),
            *_drain_blockers(desired, actual, removal, drain, at),
        )
        ops.append(RemoveShard(shard, step, command_name(step, actual.features), drain, blockers))
    return ops


def _refusals(actual: ClusterState, removal: Removal, shard: str) -> list[Blocker]:
    out = [
        Blocker(
            "zone-in-use",
            f"shard {shard} would still be the only shard of zone {zone}, which has ranges "
            f"({where}): the server refuses to remove it (ZoneStillInUse)",
            f"give zone {zone} to another shard under `shards`, or remove its ranges",
            refuses=True,
        )
        for zone, where in sorted(removal.zone_in_use.get(shard, {}).items())
    ]
    if not removal.staying:
        out.append(
            Blocker(
                "last-shard",
                f"removing {shard} would leave the cluster without a shard: the policy removes "
                f"all {plural(len(actual.shards), 'shard')} it has",
                "keep at least one shard (drop `state: removed` from one of them)",
                refuses=True,
            )
        )
    return out


def _drain_blockers(
    desired: DesiredState,
    actual: ClusterState,
    removal: Removal,
    drain: ShardDrain,
    at: dt.datetime,
) -> tuple[Blocker, ...]:
    """Why the balancer will not finish the drain by itself (model/drain_blockers.py, the
    words status, metrics and analyze use too), with what the plan knows: the window read
    in the policy's time zone at `at`, and the zones once the plan ran."""
    clock = _clock(desired, at)
    return drain_blockers(actual, drain, clock, _stranded(desired, actual, removal, drain))


def _clock(desired: DesiredState, at: dt.datetime) -> WallClock:
    """`at` in the config server's time zone: the policy's `balancer.timezone`, else UTC."""
    name = (desired.balancer.timezone if desired.balancer else None) or "UTC"
    try:
        return WallClock(at.astimezone(load_time_zone(name)), name)
    except ValueError:
        return WallClock(at.astimezone(dt.UTC), "UTC")


def _stranded(
    desired: DesiredState, actual: ClusterState, removal: Removal, drain: ShardDrain
) -> list[Stranded]:
    """A zone of a drained collection's ranges (live, or the policy's) with shards, none of
    which can receive: every one is removed or draining. The balancer stalls without a word
    (balancer_policy.cpp `isShardSuitableReceiver`). A zone the shard alone would keep is
    the zone-in-use refusal's."""
    in_use = removal.zone_in_use.get(drain.shard, {})
    seen: dict[str, str] = {}
    for c in drain.collections:
        zones = {r.zone for r in actual.ranges_of(c.namespace)}
        policy = desired.collections.get(c.namespace)
        if policy is not None and policy.manages_ranges:
            zones = set(policy.zones())
        for zone in sorted(zones):
            seen.setdefault(zone, c.namespace)
    out = []
    for zone, ns in sorted(seen.items()):
        carriers = removal.zones_after.get(zone, set())
        if zone in in_use or not carriers or carriers & removal.recipients:
            continue
        out.append(Stranded(zone, ns, tuple(sorted(carriers - {drain.shard}))))
    return out


def absent_removals(
    desired: DesiredState, actual: ClusterState, problems: Problems, notes: list[str]
) -> None:
    """A removed shard the cluster lacks: done when config.changelog records its removal (a
    note); else a warning naming it, since a misspelt name would otherwise plan nothing."""
    live = sorted(s.id for s in actual.shards)
    for shard in sorted(desired.removed_shards - set(live)):
        when = actual.removed_before.get(shard)
        if when is not None:
            at = when.strftime("%Y-%m-%d %H:%M UTC") if isinstance(when, dt.datetime) else when
            notes.append(f"shard {shard} was removed from the cluster at {at}: nothing to do")
            continue
        spec = desired.shard_specs.get(shard)
        problems.warn(
            spec.position if spec is not None else None,
            f"shard {shard} (state: removed) is not in the cluster and config.changelog records "
            f"no removal of it: a misspelt name? The cluster has {', '.join(live)}. "
            "If it was removed long ago, drop its entry from the policy",
        )
