"""The disk sections of the HTML pages: status's per-shard volumes now and after the pending
moves, and the plan's shards past their limit (BLOCKED: apply refuses the plan)."""

from __future__ import annotations

from zonectl.capacity.text import capacity_lines
from zonectl.model.capacity import CapacityReport, ShardProjection
from zonectl.plan.op_base import format_bytes
from zonectl.render.html.markup import esc, table
from zonectl.render.status_disk import after_text, pending_lines, state_text


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "?"


def _row(s: ShardProjection, after: str) -> tuple[str, ...]:
    return (
        s.shard,
        format_bytes(s.total_bytes),
        f"{format_bytes(s.used_bytes)} ({_pct(s.used_bytes, s.total_bytes)})",
        after,
        f"{s.limit_text} ({format_bytes(s.limit_bytes)})",
        state_text(s) or "ok",
    )


def status_disk_section(disk: CapacityReport | None) -> str:
    """Empty when no volume was read (the notes say why)."""
    if disk is None or not disk.shards:
        return ""
    rows = [_row(s, after_text(s)) for s in disk.shards]
    heads = ("shard", "volume", "used now", "after pending moves", "limit", "state")
    out = ["<h2>Per shard: disk</h2>\n", table(heads, rows, numeric=(1, 2, 3), label="disk")]
    pending = [f"{s.shard}: {line}" for s in disk.shards for line in pending_lines(s)]
    if pending:
        out.append("<ul>" + "".join(f"<li>{esc(p)}</li>" for p in pending) + "</ul>\n")
    return "".join(out)


def plan_disk_section(disk: CapacityReport | None) -> str:
    """Shards the plan takes past their limit (apply refuses it) or already past it; empty
    while every shard stays under its limit, as the text and markdown views."""
    found = capacity_lines(disk)
    if disk is None or not found:
        return ""
    out = ["<h2>Disk capacity</h2>\n"]
    if disk.blocked:
        out.append('<p class="bad">zonectl apply refuses this plan: it would fill a disk</p>\n')
    for line, details in found:
        items = "".join(f"<li>{esc(d)}</li>" for d in details)
        out.append(f'<p class="bad">{esc(line)}</p>\n' + (f"<ul>{items}</ul>\n" if items else ""))
    rows = [_row(s, after_text(s)) for s in disk.shards]
    heads = ("shard", "volume", "used now", "after this plan", "limit", "state")
    out.append(table(heads, rows, numeric=(1, 2, 3), label="disk"))
    return "".join(out)
