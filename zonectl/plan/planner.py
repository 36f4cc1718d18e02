"""make_plan: diff the desired state against the live cluster into ordered ops. Pure: no
clock, no I/O; the instant and the firehose boundaries are inputs.

Ordering rules (each tested on its own in tests/plan/test_ordering.py):

1. Zone memberships are added first: updateZoneKeyRange refuses a zone no shard carries
   (ZoneNotFound, reference §1.5 (b)). Sorted by (zone, shard).
2. Then key changes (RefineShardKey, ReshardCollection; plan/key_change.py), namespaces
   sorted by name: a refine rewrites the live ranges the range ops below remove, and a
   resharding carries its namespace's ranges as `zones` (it has no range ops).
3. Then per namespace, namespaces sorted by name: range removals before range additions,
   because the server rejects any overlap with a live range, including identical bounds
   with another zone (RangeOverlapConflict, §1.5 (d)). Within each group, ties are broken
   by the BSON order of min (then max), so plans are byte-identical across runs.
4. Then memberships are removed, sorted by (zone, shard): after every range op, because a
   zone's last shard cannot leave while any namespace has a range of it (ZoneStillInUse,
   §1.3); the planner refuses a plan that would leave a zone with ranges and no shard.
5. Last, per-collection balancing, query sampling and balancer settings (by namespace),
   then the balancer window and settings, then the balancer on/off switch (a balancer
   being enabled starts inside its new window, with its new settings), then the settings
   the switch itself writes on 7.0+ (automerge; plan/settings.py).

Ownership (ARCHITECTURE.md, "Principles"): memberships of zones named under `shards` are
authoritative, and per namespace under `collections` what its entry names
(`CollectionPolicy.aspects`): its ranges only when it names `ranges`, `pin`, `firehose` or
`slices`, its key only with `key`; everything else is reported as unmanaged
(plan/unmanaged.py) and left alone.

Ranges on an unsharded namespace are allowed by MongoDB since 4.0.2 (§1.5 (a)) and are
used to pre-split a collection about to be sharded: they are planned, with a warning.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zonectl.errors import PlanError
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import CollectionPolicy, DesiredState
from zonectl.plan import key_change
from zonectl.plan.ops import (
    AddShardToZone,
    Op,
    RemoveShardFromZone,
    SetCollectionBalancing,
)
from zonectl.plan.plan import Plan, make_fingerprint
from zonectl.plan.ranges import Problems, WantedRange, diff_ranges, namespace_ranges
from zonectl.plan.sampling import sampling_ops
from zonectl.plan.settings import balancer_ops, collection_setting_ops
from zonectl.plan.shard_addition import (
    join_ops,
    recipients,
    removed_present,
    shards_to_add,
    stopped_draining,
)
from zonectl.plan.shard_removal import Removal, absent_removals, relocation_ops, removal_ops
from zonectl.plan.unmanaged import owns_ranges, unmanaged_items
from zonectl.plan.unsharded import (
    book_move,
    initial_load,
    is_unsharded_pin,
    pin_unsharded,
    refuse_kind,
    stuck_notes,
)


def make_plan(
    desired: DesiredState,
    actual: ClusterState,
    *,
    boundaries: Mapping[str, Any],
    at: dt.datetime,
    namespaces: Collection[str] | None = None,
    origins: Mapping[str, str] | None = None,
    notes: Sequence[str] = (),
) -> Plan:
    """The ordered ops that take `actual` to `desired`. Raises PlanError listing every
    problem (file:line first) when the policy cannot be planned against this cluster.

    `namespaces` restricts the plan to those collections' range and balancing ops plus
    the memberships their new ranges need; membership removals and balancer settings are
    then left for a full plan. `origins` (namespace -> pattern) and `notes` come from
    pattern expansion and are carried into the plan for display.
    """
    problems = Problems(fallback=desired.sources[0] if desired.sources else "policy")
    live = _holders(actual)
    gone = removed_present(desired, actual)
    added = shards_to_add(desired, actual)  # they join before any data moves
    receive = recipients(actual, gone, stopped_draining(desired, actual)) | added
    after = _memberships_after(desired, actual, live, gone, problems)
    zones = _Zones(live, after, receive, _rezoned(live, after))
    draft = _Draft(notes=list(notes), load=initial_load(actual))
    for ns in sorted(desired.collections):
        _plan_namespace(desired, actual, ns, boundaries, zones, draft, problems)
    draft.notes += stuck_notes(draft.stuck, actual.features_text)
    in_use = _check_zones_keep_a_shard(desired, actual, zones, gone, draft.zones_in_use, problems)
    staying = frozenset({s.id for s in actual.shards} - gone) | added
    removal = Removal(gone, staying, receive, zones.after, in_use)
    _refuse_unplannable(problems)
    ops = _ordered_ops(desired, actual, zones, draft, problems)
    if namespaces is not None:  # shards join and leave in a full plan only
        ops = _restrict(ops, frozenset(namespaces), desired, problems)
    else:
        ops = _with_shard_ops(ops, desired, actual, removal, draft, problems, at)
    return Plan(
        ops=tuple(ops),
        at=at,
        policy_digest=desired.digest,
        fingerprint=make_fingerprint(actual, frozenset(desired.collections)),
        sources=desired.sources,
        cluster_version=actual.version,
        unmanaged=unmanaged_items(desired, actual),
        warnings=tuple(problems.warnings),
        namespaces=tuple(sorted(namespaces)) if namespaces is not None else (),
        notes=tuple(draft.notes),
        origins=dict(origins or {}),
    )


@dataclass(frozen=True)
class _Zones:
    """zone -> the shards carrying it: `live` now, `after` once the plan has run."""

    live: dict[str, set[str]]
    after: dict[str, set[str]]  # a removed shard keeps its zones until it leaves
    receive: frozenset[str] = frozenset()  # shards that stay and are not draining
    rezoned: frozenset[str] = frozenset()  # zones whose shards differ after from live

    def receivers(self, zone: str) -> frozenset[str]:
        """The shards of `zone` that can take data once the plan has run."""
        return frozenset(self.after.get(zone, set())) & self.receive


@dataclass
class _Draft:
    """What the walk over the policy's namespaces collects, kept apart by the place each
    group takes in the plan's order (module docstring), plus what later steps check."""

    notes: list[str]
    load: dict[str, int]  # shard -> bytes, grown by each planned move
    key_ops: list[Op] = field(default_factory=list)
    range_ops: list[Op] = field(default_factory=list)
    move_ops: list[Op] = field(default_factory=list)
    balancing_ops: list[Op] = field(default_factory=list)
    stuck: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    zones_in_use: dict[str, str] = field(default_factory=dict)  # zone -> where a range of it is


def _plan_namespace(
    desired: DesiredState,
    actual: ClusterState,
    ns: str,
    boundaries: Mapping[str, Any],
    zones: _Zones,
    draft: _Draft,
    problems: Problems,
) -> None:
    """One namespace's ops into `draft`: the move that pins an unsharded collection, its
    key change and ranges, then its balancing, query sampling and settings."""
    cp = desired.collections[ns]
    if refuse_kind(cp, actual, problems):
        return
    if is_unsharded_pin(cp, actual):
        _pin_moves(cp, actual, zones, draft, problems)
    change = key_change.classify(cp, actual, problems)
    key = change.key if change is not None else None
    wanted = (
        namespace_ranges(desired, actual, ns, boundaries, problems, key)
        if cp.manages_ranges
        else []
    )
    for r in wanted:  # the first place of each zone, written out only for a new zone
        if r.zone not in draft.zones_in_use:
            draft.zones_in_use[r.zone] = problems.where(r.position)
    _key_and_range_ops(cp, actual, ns, change, wanted, zones, draft, problems)
    draft.balancing_ops.extend(_balancing(desired, actual, ns, problems))
    draft.balancing_ops.extend(sampling_ops(desired, actual, ns, problems))
    draft.balancing_ops.extend(collection_setting_ops(desired, actual, ns, problems, draft.notes))


def _pin_moves(
    cp: CollectionPolicy, actual: ClusterState, zones: _Zones, draft: _Draft, problems: Problems
) -> None:
    """The move that puts an unsharded collection on a shard of its pinned zone, booked on
    that shard's load so the next pin picks another shard on a tie."""
    zone_shards = zones.receivers(cp.pin or "")
    moves = pin_unsharded(cp, actual, zone_shards, draft.load, problems, draft.notes, draft.stuck)
    for op in moves:
        book_move(op, draft.load, None)
        draft.move_ops.append(op)


def _key_and_range_ops(
    cp: CollectionPolicy,
    actual: ClusterState,
    ns: str,
    change: key_change.KeyChange | None,
    wanted: list[WantedRange],
    zones: _Zones,
    draft: _Draft,
    problems: Problems,
) -> None:
    """A running resharding is noted (never a second one); a reshard carries the wanted
    ranges as its zones; else a refine first, then the range diff against the live ranges
    as the refine leaves them, or the reshard route for a changed layout that takes it."""
    live_ranges = actual.ranges_of(ns)
    running = actual.resharding_of(ns)
    if running is not None and (change is None or change.kind == "running"):
        draft.notes.append(key_change.in_progress(running))
        return
    if change is not None and change.kind == "reshard":
        draft.key_ops.append(key_change.reshard_op(change, cp, actual, wanted))
        return
    if change is not None:  # a refine: the live ranges as it will rewrite them
        draft.key_ops.append(key_change.refine_op(change, cp, actual))
        live_ranges = key_change.refined_ranges(live_ranges, change.key)
    diff = diff_ranges(ns, wanted, live_ranges) if cp.manages_ranges else []
    rezoned = any(r.zone in zones.rezoned for r in wanted)
    changed = (diff or rezoned) and change is None
    if changed and key_change.takes_route(cp, actual, problems):
        draft.key_ops.append(key_change.route_op(cp, actual, wanted))  # the reshard route
    else:
        draft.range_ops.extend(diff)


def _check_zones_keep_a_shard(
    desired: DesiredState,
    actual: ClusterState,
    zones: _Zones,
    gone: frozenset[str],
    in_use: dict[str, str],
    problems: Problems,
) -> dict[str, dict[str, str]]:
    """An error for each zone that would have ranges (planned, or live ones the policy
    leaves alone) but no shard once the plan has run (ZoneStillInUse, §1.3). A removed
    shard counts as gone: a zone only removed shards keep is returned instead (shard ->
    zone -> where its ranges are), a refusal on their removal (plan/shard_removal.py)."""
    refused: dict[str, dict[str, str]] = {}
    for lr in actual.ranges:
        if not owns_ranges(desired, lr.namespace):
            entry = desired.collections.get(lr.namespace)
            where = f"unmanaged namespace {lr.namespace}"
            if entry is not None:
                where = f"{problems.where(entry.position)}: live ranges of {lr.namespace}"
            in_use.setdefault(lr.zone, where)
    for zone, where in sorted(in_use.items()):
        keep = zones.after.get(zone, set())
        if not keep:
            problems.errors.append(
                f"{where}: zone {zone} would have ranges but no shard; "
                f"list a shard for it under `shards`"
            )
        elif not keep - gone:
            for shard in keep:
                refused.setdefault(shard, {})[zone] = where
    return refused


def _refuse_unplannable(problems: Problems) -> None:
    """PlanError listing every problem found so far, if any."""
    if problems.errors:
        raise PlanError(
            f"the policy cannot be planned against this cluster "
            f"({len(problems.errors)} problem(s)):",
            details=problems.errors,
        )


def _ordered_ops(
    desired: DesiredState,
    actual: ClusterState,
    zones: _Zones,
    draft: _Draft,
    problems: Problems,
) -> list[Op]:
    """Every op in the order the module docstring states: memberships added, key changes,
    range ops, moves, memberships removed, per-collection ops, then the balancer's."""
    adds = [
        AddShardToZone(shard, zone)
        for zone in sorted(zones.after)
        for shard in sorted(zones.after[zone] - zones.live.get(zone, set()))
    ]
    removes = [
        RemoveShardFromZone(shard, zone)
        for zone in sorted(zones.after)
        for shard in sorted(zones.live.get(zone, set()) - zones.after[zone])
    ]
    settings = balancer_ops(desired, actual, problems)
    return [
        *adds, *draft.key_ops, *draft.range_ops, *draft.move_ops, *removes,
        *draft.balancing_ops, *settings,
    ]  # fmt: skip


def _with_shard_ops(
    ops: list[Op],
    desired: DesiredState,
    actual: ClusterState,
    removal: Removal,
    draft: _Draft,
    problems: Problems,
    at: dt.datetime,
) -> list[Op]:
    """Shards joining first (before the memberships they get), the unsharded data of
    removed shards moved after the pins' moves, and each removal last (plan/shard_*.py)."""
    joins = join_ops(desired, actual, problems, draft.notes)
    absent_removals(desired, actual, problems, draft.notes)
    moved = {r.ns for op in draft.move_ops if (r := op.relocation()) is not None}
    relocate = relocation_ops(actual, removal, draft.load, moved)
    cut = next(
        (i for i, op in enumerate(ops) if op.phase not in ("join", "key", "range", "relocate")),
        len(ops),
    )
    return [*joins, *ops[:cut], *relocate, *ops[cut:], *removal_ops(desired, actual, removal, at)]


def _rezoned(live: dict[str, set[str]], after: dict[str, set[str]]) -> frozenset[str]:
    """The zones whose shards change (compared once, not per range of every namespace)."""
    return frozenset(z for z in live.keys() | after.keys() if after.get(z) != live.get(z))


def _holders(actual: ClusterState) -> dict[str, set[str]]:
    holders: dict[str, set[str]] = {}
    for shard in actual.shards:
        for zone in shard.zones:
            holders.setdefault(zone, set()).add(shard.id)
    return holders


def _memberships_after(
    desired: DesiredState,
    actual: ClusterState,
    live: dict[str, set[str]],
    gone: frozenset[str],
    problems: Problems,
) -> dict[str, set[str]]:
    """zone -> shards carrying it once the plan has run (managed zones as the policy says;
    a shard it adds counts, a removed one keeps its live zones: they leave with it)."""
    present = {s.id for s in actual.shards}
    known = present | shards_to_add(desired, actual)
    for shard in sorted(set(desired.shards) - known - desired.removed_shards):
        problems.error(
            desired.shard_positions.get(shard),
            f"unknown shard {shard!r} under `shards`; the cluster has {sorted(present)}",
        )
    after = {zone: set(holders) for zone, holders in live.items()}
    for zone in desired.managed_zones:
        after[zone] = {
            s
            for s, zones in desired.shards.items()
            if zone in zones and s in known and s not in desired.removed_shards
        }
    for zone, holders in live.items():
        for shard in holders & gone:
            after.setdefault(zone, set()).add(shard)
    return after


def _balancing(
    desired: DesiredState, actual: ClusterState, ns: str, problems: Problems
) -> list[Op]:
    cp = desired.collections[ns]
    if cp.balancing is None:
        return []
    live = actual.collections.get(ns)
    if live is None:
        problems.warn(cp.position, f"{ns} is not sharded: `balancing` is ignored")
        return []
    if live.no_balance == (not cp.balancing):
        return []
    by_command = actual.features >= (8, 1)  # configureCollectionBalancing enableBalancing
    return [SetCollectionBalancing(ns, cp.balancing, not live.no_balance, by_command)]


def _restrict(
    ops: list[Op], only: frozenset[str], desired: DesiredState, problems: Problems
) -> list[Op]:
    for ns in sorted(only - set(desired.collections)):
        problems.warn(None, f"--namespace {ns}: no policy manages it")
    kept = [op for op in ops if op.namespace is not None and op.namespace in only]
    needed = {r.zone for op in kept if (r := op.range_change()) is not None and r.adds}
    joins = [(op, op.membership_change()) for op in ops]
    adds = [op for op, m in joins if m is not None and m.joins and m.zone in needed]
    return [*adds, *kept]
