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
from typing import Any

from zonectl.errors import PlanError
from zonectl.model.cluster import ClusterState, LiveRange
from zonectl.model.desired import DesiredState
from zonectl.model.keys import sort_key
from zonectl.plan import key_change
from zonectl.plan.ops import (
    AddShardToZone,
    AssignZoneRange,
    Op,
    RemoveShardFromZone,
    RemoveZoneRange,
    SetBalancerEnabled,
    SetBalancerWindow,
    SetCollectionBalancing,
)
from zonectl.plan.plan import Plan, make_fingerprint
from zonectl.plan.ranges import Problems, WantedRange, check_ranges, same_key, wanted_ranges
from zonectl.plan.sampling import sampling_ops
from zonectl.plan.settings import cluster_setting_ops, collection_setting_ops
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
    live_holders = _holders(actual)
    after = _memberships_after(desired, actual, live_holders, problems)

    range_ops: list[Op] = []
    key_ops: list[Op] = []
    balancing_ops: list[Op] = []
    move_ops: list[Op] = []
    plan_notes = list(notes)
    stuck: dict[tuple[str, str], list[str]] = {}
    load = initial_load(actual)
    zones_in_use: dict[str, str] = {}  # zone -> where a range of it is (for messages)
    for ns in sorted(desired.collections):
        cp = desired.collections[ns]
        if refuse_kind(cp, actual, problems):
            continue
        if is_unsharded_pin(cp, actual):
            zone_shards = frozenset(after.get(cp.pin or "", set()))
            for op in pin_unsharded(cp, actual, zone_shards, load, problems, plan_notes, stuck):
                book_move(op, load, None)
                move_ops.append(op)
        change = key_change.classify(cp, actual, problems)
        key = change.key if change is not None else None
        wanted = (
            _namespace_ranges(desired, actual, ns, boundaries, problems, key)
            if cp.manages_ranges
            else []
        )
        for r in wanted:
            zones_in_use.setdefault(r.zone, problems.where(r.position))
        live_ranges = actual.ranges_of(ns)
        running = actual.resharding_of(ns)
        if running is not None and (change is None or change.kind == "running"):
            plan_notes.append(key_change.in_progress(running))  # never a second one
        elif change is not None and change.kind == "reshard":
            key_ops.append(key_change.reshard_op(change, cp, actual, wanted))
        else:
            if change is not None:  # a refine: the live ranges as it will rewrite them
                key_ops.append(key_change.refine_op(change, cp, actual))
                live_ranges = key_change.refined_ranges(live_ranges, change.key)
            diff = _diff_ranges(ns, wanted, live_ranges) if cp.manages_ranges else []
            rezoned = any(after.get(r.zone) != live_holders.get(r.zone) for r in wanted)
            changed = (diff or rezoned) and change is None
            if changed and key_change.takes_route(cp, actual, problems):
                key_ops.append(key_change.route_op(cp, actual, wanted))  # the reshard route
            else:
                range_ops.extend(diff)
        balancing_ops.extend(_balancing(desired, actual, ns, problems))
        balancing_ops.extend(sampling_ops(desired, actual, ns, problems))
        balancing_ops.extend(collection_setting_ops(desired, actual, ns, problems, plan_notes))
    plan_notes += stuck_notes(stuck, actual.features_text)
    for lr in actual.ranges:
        if not owns_ranges(desired, lr.namespace):
            entry = desired.collections.get(lr.namespace)
            where = f"unmanaged namespace {lr.namespace}"
            if entry is not None:
                where = f"{problems.where(entry.position)}: live ranges of {lr.namespace}"
            zones_in_use.setdefault(lr.zone, where)
    for zone, where in sorted(zones_in_use.items()):
        if not after.get(zone):
            problems.errors.append(
                f"{where}: zone {zone} would have ranges but no shard; "
                f"list a shard for it under `shards`"
            )
    if problems.errors:
        raise PlanError(
            f"the policy cannot be planned against this cluster "
            f"({len(problems.errors)} problem(s)):",
            details=problems.errors,
        )

    adds = [
        AddShardToZone(shard, zone)
        for zone in sorted(after)
        for shard in sorted(after[zone] - live_holders.get(zone, set()))
    ]
    removes = [
        RemoveShardFromZone(shard, zone)
        for zone in sorted(after)
        for shard in sorted(live_holders.get(zone, set()) - after[zone])
    ]
    settings = _balancer_ops(desired, actual, problems)
    ops: list[Op] = [
        *adds, *key_ops, *range_ops, *move_ops, *removes, *balancing_ops, *settings
    ]  # fmt: skip
    if namespaces is not None:
        ops = _restrict(ops, frozenset(namespaces), desired, problems)
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
        notes=tuple(plan_notes),
        origins=dict(origins or {}),
    )


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
    problems: Problems,
) -> dict[str, set[str]]:
    """zone -> shards carrying it once the plan has run (managed zones as the policy says)."""
    known = {s.id for s in actual.shards}
    for shard in sorted(set(desired.shards) - known):
        problems.error(
            desired.shard_positions.get(shard),
            f"unknown shard {shard!r} under `shards`; the cluster has {sorted(known)}",
        )
    after = {zone: set(holders) for zone, holders in live.items()}
    for zone in desired.managed_zones:
        after[zone] = {s for s, zones in desired.shards.items() if zone in zones and s in known}
    return after


def _namespace_ranges(
    desired: DesiredState,
    actual: ClusterState,
    ns: str,
    boundaries: Mapping[str, Any],
    problems: Problems,
    new_key: Mapping[str, Any] | None = None,
) -> list[WantedRange]:
    """The policy's ranges in `new_key` (a planned key change) or else the live key."""
    cp = desired.collections[ns]
    live = actual.collections.get(ns)
    known = new_key is None and live is not None and cp.key is not None
    if known and live is not None and cp.key is not None and not same_key(cp.key, live.key):
        return []  # a resharding to another key is running: classify() said so
    key = new_key if new_key is not None else live.key if live is not None else cp.key
    wanted = wanted_ranges(cp, key, boundaries.get(ns), problems)
    if live is None and wanted:
        problems.warn(
            cp.position,
            f"{ns} is not sharded: its ranges are planned and will apply when it is sharded",
        )
    return check_ranges(ns, key, wanted, problems)


def _diff_ranges(ns: str, wanted: list[WantedRange], live: tuple[LiveRange, ...]) -> list[Op]:
    """Removals (exact live bounds) then additions, each in BSON order of min.

    Ranges match on (min, max, zone) compared in BSON order (numbers by value), so a live
    range with identical bounds but another zone is removed and re-added."""

    def ident(zone: str, lo: Mapping[str, Any], hi: Mapping[str, Any]) -> tuple[Any, ...]:
        return (sort_key(lo), sort_key(hi), zone)

    wanted_ids = {ident(r.zone, r.min, r.max) for r in wanted}
    live_ids = {ident(r.zone, r.min, r.max) for r in live}
    removals = [
        RemoveZoneRange(ns, r.zone, r.min, r.max)
        for r in live
        if ident(r.zone, r.min, r.max) not in wanted_ids
    ]
    additions = [
        AssignZoneRange(ns, r.zone, r.min, r.max)
        for r in wanted
        if ident(r.zone, r.min, r.max) not in live_ids
    ]
    removals.sort(key=lambda op: ident(op.zone, op.min, op.max))
    additions.sort(key=lambda op: ident(op.zone, op.min, op.max))
    return [*removals, *additions]


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


def _balancer_ops(desired: DesiredState, actual: ClusterState, problems: Problems) -> list[Op]:
    policy, live = desired.balancer, actual.balancer
    if policy is None:
        return []
    switch = policy.enabled if policy.enabled not in (None, live.enabled) else None
    before, after = cluster_setting_ops(desired, actual, switch, problems)
    ops: list[Op] = []
    live_window = (
        (live.active_window["start"], live.active_window["stop"]) if live.active_window else None
    )
    if policy.manage_window:
        want = policy.active_window
        want_pair = (want.start, want.stop) if want is not None else None
        if want_pair != live_window:
            start, stop = want_pair if want_pair else (None, None)
            ops.append(SetBalancerWindow(start, stop, live_window))
    ops += before
    if switch is not None:
        ops.append(SetBalancerEnabled(switch, live.enabled))
    return ops + after


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
