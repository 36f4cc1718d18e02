"""Cluster rules `zonectl plan` applies to its own plan: a new range that would leave a
jumbo chunk stranded (the balancer never moves one, reference §5.4), and a change that
would migrate most of a collection at once. Pure: the mongo layer reads the jumbo chunks
and chunk totals of the namespaces the plan assigns ranges in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from zonectl.analyze.inputs import ChunkInfo
from zonectl.analyze.report import Finding, Severity
from zonectl.diagnostics import Position
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.model.keys import format_value, range_contains, ranges_overlap, sort_key
from zonectl.plan.impact import zone_shards_after
from zonectl.plan.op_base import RangeChange
from zonectl.plan.plan import Plan

MOST = 0.5  # a change migrating more than half of a collection's chunks


def plan_findings(
    plan: Plan,
    actual: ClusterState,
    desired: DesiredState,
    jumbo: Mapping[str, Sequence[ChunkInfo]],
    totals: Mapping[str, int],
) -> list[tuple[Position | None, Finding]]:
    """Each finding with the policy position of its collection (for annotations)."""
    zones = zone_shards_after(plan, actual)
    found: list[tuple[Position | None, Finding]] = []
    moving: dict[str, int] = {}
    for op in plan.ops:
        new = op.range_change()
        if new is None or not new.adds:
            continue
        policy = desired.collections.get(new.ns)
        where = policy.position if policy is not None else None
        if op.impact is not None:
            moving[new.ns] = moving.get(new.ns, 0) + op.impact.migrating
        holders = zones.get(new.zone, frozenset())
        for chunk in jumbo.get(new.ns, ()):
            if not ranges_overlap(chunk.min, chunk.max, new.min, new.max):
                continue
            shown = f"[{format_value(dict(chunk.min))}, {format_value(dict(chunk.max))})"
            inside = range_contains(new.min, new.max, chunk.min, chunk.max)
            if inside and chunk.shard in holders:
                continue
            why = (
                f"sits on {chunk.shard}, outside zone {new.zone}"
                if inside
                else f"crosses the new bound {format_value(dict(_bound_in(new, chunk)))}"
            )
            found.append(
                (
                    where,
                    Finding(
                        "ZA201",
                        "range-strands-jumbo-chunk",
                        Severity.WARNING,
                        new.ns,
                        f"{op.describe()}: jumbo chunk {shown} {why}; the balancer will "
                        "never move it, so the range cannot comply",
                        "Split the jumbo chunk (or refine the key) and clearJumboFlag before "
                        "applying, or move it with moveChunk forceJumbo; or, on 7.2+, make "
                        "the change by resharding (`migrate: reshard`), which rewrites "
                        "every chunk and leaves no jumbo one behind.",
                        "config metadata",
                    ),
                )
            )
    for ns, n in sorted(moving.items()):
        total = totals.get(ns, 0)
        if total and n > MOST * total:
            policy = desired.collections.get(ns)
            found.append(
                (
                    policy.position if policy is not None else None,
                    Finding(
                        "ZA202",
                        "change-moves-most-of-collection",
                        Severity.WARNING,
                        ns,
                        f"the plan would migrate {n} of {ns}'s {total} chunks "
                        f"({100 * n / total:.0f}%) at once",
                        "Stage the change: move a few ranges per apply, or apply inside a "
                        "balancer window sized for the copy; or, on 7.2+, make it one "
                        "resharding with `migrate: reshard` (every shard copies at once; "
                        "the forecast compares the three routes).",
                        "config metadata",
                    ),
                )
            )
    return found


def _bound_in(new: RangeChange, chunk: ChunkInfo) -> Mapping[str, object]:
    lo, hi = sort_key(chunk.min), sort_key(chunk.max)
    return new.min if lo < sort_key(new.min) < hi else new.max


def route_hint(ns: str, route_s: float, eager_s: float) -> str:
    """Appended to ZA202 when the forecast says the reshard route is the fastest."""
    return (
        f" The reshard route is faster for {ns}: about {route_s / 60:.0f} min as one "
        f"resharding against {eager_s / 60:.0f} min by --migrate (`migrate: reshard`, 7.2+)."
    )
