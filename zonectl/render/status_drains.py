"""The lines `zonectl status` shows for each shard being drained (text view): what it still
holds per collection, jumbo chunks, unsharded data and primaries left, orphans, the ETA and
each blocker with its way out."""

from __future__ import annotations

import datetime as dt

from zonectl.model.keys import format_value
from zonectl.render.status import DrainStatus


def drain_summary(d: DrainStatus) -> str:
    """What is left, in one line."""
    drain = d.drain
    size = f" ({size_text(drain.bytes)})" if drain.bytes is not None else ""
    head = [f"{_plural(drain.chunks, 'chunk')}{size} left"]
    if drain.estimated_remaining_bytes is not None:
        head.append(f"estimatedRemainingBytes {size_text(drain.estimated_remaining_bytes)}")
    if drain.jumbo:
        head.append(_plural(len(drain.jumbo), "jumbo chunk"))
    if drain.unsharded:
        head.append(_plural(len(drain.unsharded), "unsharded collection"))
    if drain.databases:
        head.append(f"primary of {_plural(len(drain.databases), 'database')}")
    if drain.orphan_docs:
        head.append(
            f"{_plural(drain.orphan_docs, 'orphan document')} "
            f"({size_text(drain.orphan_bytes)}) pending deletion"
        )
    return ", ".join(head)


def drain_lines(d: DrainStatus) -> list[str]:
    """The drain's head line, then its details indented under it."""
    drain = d.drain
    lines = [f"  {drain.shard}: {drain_summary(d)}", f"    ETA: {eta_text(d)}"]
    for c in drain.collections:
        size = size_text(c.bytes) if c.bytes is not None else "size unknown"
        lines.append(f"    {c.namespace}: {_plural(c.chunks, 'chunk')}, {size}")
    for j in drain.jumbo:
        size = size_text(j.bytes) if j.bytes is not None else "size unknown"
        lines.append(
            f"    jumbo {j.namespace} [{format_value(j.min)}, {format_value(j.max)}): {size}"
        )
    if drain.unsharded:
        lines.append(f"    unsharded (moveCollection): {', '.join(drain.unsharded)}")
    if drain.databases:
        lines.append(f"    primary of (movePrimary): {', '.join(drain.databases)}")
    for b in d.blockers:
        lines.append(f"    BLOCKED ({b.code}): {b.message}")
        lines.append(f"      fix: {b.fix}")
    return lines


def eta_text(d: DrainStatus) -> str:
    """When the balancer is forecast to have emptied the shard, or why it never will."""
    if d.eta is not None:
        eta = d.eta.astimezone(dt.UTC) if d.eta.tzinfo else d.eta
        return f"empty by {eta:%Y-%m-%d %H:%M} UTC (forecast, by the balancer)"
    if d.eta_note.startswith("never") and d.blocked:
        return "never by the balancer as things stand (BLOCKED below)"
    return d.eta_note or "not forecast"


def size_text(value: int) -> str:
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    return str(value)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"
