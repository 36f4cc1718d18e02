"""The words for a shard's volume in the plan's views and apply's refusal: a BLOCKED line per
shard the plan would take past its limit (its volume, the projected use, the routes, the ways
out), and a line per shard already past it. Nothing when every shard stays under."""

from __future__ import annotations

from zonectl.model.capacity import CapacityReport, ShardProjection
from zonectl.plan.op_base import format_bytes

ROUTE_NAMES = {
    "ranges": "zone ranges (apply --migrate or the balancer)",
    "reshard": "resharding (a copy beside the collection until it commits)",
    "drain": "drain of a removed shard",
    "move_collection": "moveCollection",
}


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "?"


def volume_text(s: ShardProjection) -> str:
    return (
        f"volume {format_bytes(s.total_bytes)}, {format_bytes(s.used_bytes)} used "
        f"({_pct(s.used_bytes, s.total_bytes)})"
    )


def blocked_line(s: ShardProjection) -> str:
    """One line: the shard, its volume, the projected use and its limit."""
    return (
        f"BLOCKED shard {s.shard}: {volume_text(s)}; after this plan "
        f"{format_bytes(s.projected_bytes)} ({_pct(s.projected_bytes, s.total_bytes)}), "
        f"past its limit {s.limit_text} ({format_bytes(s.limit_bytes)})"
    )


def ways_out(s: ShardProjection) -> str:
    return (
        "ways out: another shard (give the zone a shard with room), staging (move part of "
        "the data per plan), compact (returns the free space WiredTiger keeps after "
        "deletes and migrations), a larger volume; or set `disk: {limit}` for "
        f"{s.shard} if it may fill further"
    )


def blocked_details(s: ShardProjection) -> list[str]:
    """Under the BLOCKED line: each route with what it adds on disk, then the ways out."""
    out = [
        f"route {ROUTE_NAMES.get(r.route, r.route)}: +{format_bytes(r.added_bytes)} on disk "
        f"({format_bytes(r.incoming_bytes)} of {', '.join(r.sources)})"
        for r in s.routes
    ]
    if s.reused_bytes:
        out.append(f"reuses {format_bytes(s.reused_bytes)} of free space inside its files")
    if s.over_before:
        out.append("already past its limit before this plan; it adds to it")
    return [*out, ways_out(s)]


def over_line(s: ShardProjection) -> str:
    return (
        f"shard {s.shard} is past its limit {s.limit_text} before this plan: {volume_text(s)}; "
        "this plan adds nothing to it"
    )


def capacity_lines(report: CapacityReport | None) -> list[tuple[str, list[str]]]:
    """(line, details) per blocked shard, then per shard past its limit that the plan
    leaves as it is; [] when every shard stays under its limit."""
    if report is None:
        return []
    out = [(blocked_line(s), blocked_details(s)) for s in report.blocked]
    out += [(over_line(s), []) for s in report.over_before if not s.blocked]
    return out
