"""What the cluster's zone layout will be once a plan has run: per namespace its zone
ranges, per shard its zones, the balancer window and switches. The forecast of `plan`
reads chunks against this, not against today's ranges."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from zonectl.forecast.inputs import Range
from zonectl.model.cluster import ClusterState, day_windows_in_force
from zonectl.model.desired import DesiredState
from zonectl.model.keys import sort_key
from zonectl.plan.impact import zone_shards_after
from zonectl.plan.plan import Plan


@dataclass(frozen=True)
class StateAfter:
    ranges: dict[str, list[Range]]
    shard_zones: dict[str, frozenset[str]]
    window: Mapping[str, str] | None
    balancer_enabled: bool
    no_balance: frozenset[str]
    day_windows: tuple[Mapping[str, str], ...] = ()  # activeWindowDOW in force after it
    defragmenting: frozenset[str] = frozenset()  # defragmentCollection: true after it


def state_after(
    plan: Plan, actual: ClusterState, desired: DesiredState, only: list[str] | None
) -> StateAfter:
    names = [ns for ns in sorted(desired.collections) if ns in actual.collections]
    if only:
        names = [ns for ns in names if ns in only]
    ranges: dict[str, list[Range]] = {
        ns: [(r.min, r.max, r.zone) for r in actual.ranges_of(ns)] for ns in names
    }
    no_balance = {ns for ns, c in actual.collections.items() if c.no_balance}
    defragmenting = {
        ns for ns, c in actual.collections.items() if c.settings.get("defragmentCollection")
    }
    for op in plan.ops:  # each op says what it changes (plan/op_base.py)
        ns, change, whole = op.namespace, op.range_change(), op.ranges_after()
        balanced, setting = op.balancing_after(), op.setting_change()
        if change is not None and change.ns in ranges:
            gone = (sort_key(change.min), sort_key(change.max))
            if change.adds:
                ranges[change.ns].append((dict(change.min), dict(change.max), change.zone))
            else:
                kept = ranges[change.ns]
                ranges[change.ns] = [r for r in kept if (sort_key(r[0]), sort_key(r[1])) != gone]
        elif whole is not None and ns is not None and ns in ranges:
            # The reshard route: the zones it carries are the namespace's ranges after it.
            ranges[ns] = [(dict(r.min), dict(r.max), r.zone) for r in whole]
        elif balanced is not None and ns is not None:
            (no_balance.discard if balanced else no_balance.add)(ns)
        elif setting is not None and setting[0] is not None and setting[1] == "defragment":
            # true starts it; false ends it at the balancer's next round (§5.4)
            (defragmenting.add if setting[2] else defragmenting.discard)(setting[0])
    shard_zones: dict[str, set[str]] = {s.id: set() for s in actual.shards if not s.draining}
    for zone, shards in zone_shards_after(plan, actual).items():
        for shard in shards:
            if shard in shard_zones:
                shard_zones[shard].add(zone)
    window = actual.balancer.active_window
    enabled = actual.balancer.enabled
    if desired.balancer is not None:
        if desired.balancer.manage_window:
            w = desired.balancer.active_window
            window = {"start": w.start, "stop": w.stop} if w else None
        if desired.balancer.enabled is not None:
            enabled = desired.balancer.enabled
    return StateAfter(
        ranges,
        {s: frozenset(z) for s, z in shard_zones.items()},
        window,
        enabled,
        frozenset(no_balance),
        _day_windows_after(actual, desired),
        frozenset(defragmenting),
    )


def _day_windows_after(
    actual: ClusterState, desired: DesiredState
) -> tuple[Mapping[str, str], ...]:
    """activeWindowDOW in force once the plan has run: the policy's where it names the key
    (the plan writes it only where the release has it), else the stored one."""
    wanted = desired.balancer.settings.get("activeWindowDOW") if desired.balancer else None
    if wanted is None:
        return actual.balancer.day_windows
    return day_windows_in_force(wanted.value, actual.version, actual.fcv)
