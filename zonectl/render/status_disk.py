"""The lines `zonectl status` shows for each shard's disk: its volume and use now, and once
what the cluster still has to move has arrived, against its limit (zonectl/capacity/)."""

from __future__ import annotations

from zonectl.capacity.text import ROUTE_NAMES, volume_text
from zonectl.model.capacity import CapacityReport, ShardProjection
from zonectl.plan.op_base import format_bytes


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "?"


def after_text(s: ShardProjection) -> str:
    """`18.1 GiB (90.5%)`, what the shard holds once the pending moves have arrived."""
    return f"{format_bytes(s.projected_bytes)} ({_pct(s.projected_bytes, s.total_bytes)})"


def state_text(s: ShardProjection) -> str:
    """What needs a human: past the limit now, or once the pending moves have arrived."""
    if s.over_before:
        return "PAST ITS LIMIT now"
    if s.blocked:
        return "PAST ITS LIMIT after the pending moves"
    return ""


def shard_disk_line(s: ShardProjection) -> str:
    state = state_text(s)
    return (
        f"{s.shard}: {volume_text(s)}; after pending moves {after_text(s)}; "
        f"limit {s.limit_text} ({format_bytes(s.limit_bytes)})" + (f": {state}" if state else "")
    )


def pending_lines(s: ShardProjection) -> list[str]:
    """What arrives, per route."""
    return [
        f"pending {ROUTE_NAMES.get(r.route, r.route)}: +{format_bytes(r.added_bytes)} on disk "
        f"({format_bytes(r.incoming_bytes)} of {', '.join(r.sources)})"
        for r in s.routes
    ]


def disk_lines(disk: CapacityReport | None) -> list[str]:
    """Each shard's line, its pending routes indented under it; [] when nothing was read."""
    if disk is None:
        return []
    out: list[str] = []
    for s in disk.shards:
        out.append(f"  {shard_disk_line(s)}")
        out.extend(f"    {line}" for line in pending_lines(s))
    return out
