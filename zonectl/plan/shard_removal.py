"""Shards leaving (reference shard-lifecycle.md §1-3): one RemoveShard per shard the policy
removes and the cluster has, at the step the server needs next, with what it still holds
and what stands in the way (blockers); and the moves of its unsharded data (moveCollection
on 8.0+, movePrimary) to the least-loaded shard that stays. Pure: the instant is an input.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Set
from dataclasses import dataclass

from zonectl.model.balancer_window import in_active_window
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.model.shard_lifecycle import Blocker, ShardDrain
from zonectl.plan.data_ops import MoveCollection
from zonectl.plan.op_base import Op, format_bytes, format_range, plural
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
JUMBO_NAMED = 10  # jumbo chunks named in the blocker's message; the rest are counted


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
) -> list[Blocker]:
    """Why the balancer will not finish the drain by itself: only when chunks remain."""
    if not drain.chunks:
        return []
    out: list[Blocker] = []
    chunks = plural(drain.chunks, "chunk")
    balancer = actual.balancer
    if not balancer.enabled:
        how = "stopped" if balancer.stopped else f"mode {balancer.mode}"
        out.append(
            Blocker(
                "balancer-off",
                f"the balancer is off ({how}): the {chunks} on {drain.shard} will not drain "
                "without `zonectl apply --migrate`",
                "run `zonectl apply --migrate`, or turn the balancer on "
                "(`balancer: {enabled: true}`)",
            )
        )
    else:
        closed = _window_closed(desired, actual, at)
        if closed:
            out.append(
                Blocker(
                    "outside-window",
                    f"{closed}: the {chunks} on {drain.shard} will not drain until it opens, "
                    "or without `zonectl apply --migrate`",
                    "wait for the window, widen it, or run `zonectl apply --migrate`",
                )
            )
    if drain.jumbo:
        out.append(_jumbo_blocker(drain))
    out += _no_recipient(desired, actual, removal, drain)
    return out


def _window_closed(desired: DesiredState, actual: ClusterState, at: dt.datetime) -> str:
    """How the live window reads when it is closed at `at` (in the config server's time
    zone: the policy's `balancer.timezone`, else UTC); "" when it is open or absent."""
    balancer = actual.balancer
    name = (desired.balancer.timezone if desired.balancer else None) or "UTC"
    try:
        local = at.astimezone(load_time_zone(name))
    except ValueError:
        name, local = "UTC", at.astimezone(dt.UTC)
    if in_active_window(balancer.active_window, local, balancer.day_windows):
        return ""
    now = f"{local:%A %H:%M} ({name})"
    if balancer.day_windows:
        shown = ", ".join(
            f"{d.get('day')} {d.get('start')}-{d.get('stop')}" for d in balancer.day_windows
        )
        return f"the balancer's day-of-week windows ({shown}) are closed on {now}"
    window = balancer.active_window or {}
    return f"the balancer's window {window.get('start')}-{window.get('stop')} is closed at {now}"


def _jumbo_blocker(drain: ShardDrain) -> Blocker:
    named = [
        f"{j.namespace} {format_range(j.min, j.max)} "
        f"({format_bytes(j.bytes) if j.bytes is not None else 'size unknown'})"
        for j in drain.jumbo[:JUMBO_NAMED]
    ]
    more = len(drain.jumbo) - len(named)
    listed = "; ".join(named) + (f"; and {more} more" if more > 0 else "")
    return Blocker(
        "jumbo",
        f"{plural(len(drain.jumbo), 'jumbo chunk')} on {drain.shard} the balancer skips while "
        f"draining: {listed}",
        "`zonectl apply --migrate --force-jumbo`, split the chunk, or the reshard route "
        "(reshardCollection, which the manual recommends for a shard holding jumbo chunks)",
    )


def _no_recipient(
    desired: DesiredState, actual: ClusterState, removal: Removal, drain: ShardDrain
) -> list[Blocker]:
    """A zone of a drained collection's ranges (live, or the policy's) with shards, none of
    which can receive: every one is removed or draining. The balancer stalls without a word
    (balancer_policy.cpp `isShardSuitableReceiver`)."""
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
        out.append(
            Blocker(
                "no-recipient",
                f"zone {zone} (ranges of {ns}) has no shard that can receive {drain.shard}'s "
                f"chunks in it: {', '.join(sorted(carriers))} "
                f"{'is' if len(carriers) == 1 else 'are'} removed or draining",
                f"give zone {zone} to an active shard under `shards`",
            )
        )
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
