"""The status page's section on shards being drained: per shard a table of what is left per
collection, then the jumbo chunks, unsharded data, orphans, the ETA and each blocker."""

from __future__ import annotations

from zonectl.model.keys import format_value
from zonectl.render.html.markup import esc, table
from zonectl.render.status import DrainStatus
from zonectl.render.status_drains import drain_summary, eta_text, size_text


def drains_section(drains: tuple[DrainStatus, ...]) -> str:
    """Empty when no shard is draining."""
    if not drains:
        return ""
    out = ["<h2>Shards being drained</h2>\n"]
    for d in drains:
        drain = d.drain
        out.append(f'<h3 data-shard="{esc(drain.shard)}">{esc(drain.shard)}</h3>\n')
        out.append(f'<p class="meta">{esc(drain_summary(d))}; ETA: {esc(eta_text(d))}</p>\n')
        if drain.collections:
            rows = [
                (c.namespace, f"{c.chunks:,}", size_text(c.bytes) if c.bytes is not None else "?",
                 f"{len(c.jumbo):,}")
                for c in drain.collections
            ]  # fmt: skip
            out.append(
                table(
                    ("collection", "chunks left", "bytes", "jumbo"),
                    rows,
                    numeric=(1, 2, 3),
                    label="drain",
                )
            )
        items = [
            f"jumbo {j.namespace} [{format_value(j.min)}, {format_value(j.max)})"
            for j in drain.jumbo
        ]
        if drain.unsharded:
            items.append(f"unsharded (moveCollection): {', '.join(drain.unsharded)}")
        if drain.databases:
            items.append(f"primary of (movePrimary): {', '.join(drain.databases)}")
        if items:
            out.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>\n")
        for b in d.blockers:
            out.append(
                f'<p class="bad" data-blocker="{esc(b.code)}">blocked ({esc(b.code)}): '
                f"{esc(b.message)}<br>fix: {esc(b.fix)}</p>\n"
            )
    return "".join(out)
