"""What a plan leaves alone, reported as "unmanaged": zones no `shards` entry names, the live
ranges of namespaces whose entry (if any) names no ranges, pin, firehose or slices, a
balancing switch turned off that no entry manages, query sampling no entry names, and
stored balancer settings no policy key names."""

from __future__ import annotations

from zonectl.model.cluster import ClusterState, LiveRange
from zonectl.model.desired import DesiredState
from zonectl.plan.plan import Unmanaged
from zonectl.plan.sampling import unmanaged_samplers
from zonectl.plan.settings import unmanaged_settings

# Why a listed namespace's live state is left alone: its entry names none of these.
RANGE_KEYS = "ranges, pin, firehose or slices"


def owns_ranges(desired: DesiredState, ns: str) -> bool:
    """Whether the policy manages the zone ranges of `ns` (per aspect: ARCHITECTURE.md,
    "Principles")."""
    cp = desired.collections.get(ns)
    return cp is not None and cp.manages_ranges


def unmanaged_items(desired: DesiredState, actual: ClusterState) -> tuple[Unmanaged, ...]:
    items: list[Unmanaged] = []
    holders: dict[str, set[str]] = {}
    for shard in actual.shards:
        for zone in shard.zones:
            holders.setdefault(zone, set()).add(shard.id)
    for zone in sorted(set(holders) - desired.managed_zones):
        items.append(Unmanaged("zone", zone, "shards " + ", ".join(sorted(holders[zone]))))
    by_ns: dict[str, list[LiveRange]] = {}
    for r in actual.ranges:
        if not owns_ranges(desired, r.namespace):
            by_ns.setdefault(r.namespace, []).append(r)
    for ns in sorted(by_ns):
        zones = sorted({r.zone for r in by_ns[ns]})
        n = len(by_ns[ns])
        detail = f"{n} range{'s' if n != 1 else ''} in zone{'s' if len(zones) > 1 else ''} "
        detail += ", ".join(zones)
        if ns in desired.collections:  # listed for something else: say why they stay
            detail += f" (its entry names no {RANGE_KEYS})"
        items.append(Unmanaged("namespace", ns, detail))
    for ns, cp in sorted(desired.collections.items()):
        live = actual.collections.get(ns)
        if cp.balancing is None and live is not None and live.no_balance:
            detail = "balancing off (noBalance); its entry names no `balancing`"
            items.append(Unmanaged("balancing", ns, detail))
    items.extend(unmanaged_samplers(desired, actual))
    items.extend(unmanaged_settings(desired, actual))
    return tuple(items)
