"""Per shard, the bytes it holds by zone, as stacked bars: which shards carry data of zones
they are not in. Bytes are the shard's owned bytes of each collection
($shardedDataDistribution, 6.0.3+) spread over its chunks of the collection, the estimate
status uses for out-of-zone bytes; without them the bars count chunks and say so."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from zonectl.forecast.units import format_bytes
from zonectl.render.html.markup import alternative, esc, legend, table
from zonectl.render.html.palette import NO_ZONE
from zonectl.render.status import CollectionStatus
from zonectl.render.summary import plural

Cell = tuple[str, str | None]  # shard, zone


def zone_amounts(collections: Sequence[CollectionStatus]) -> tuple[dict[Cell, float], bool]:
    """(shard, zone) -> bytes (or chunks), and whether the amounts are bytes."""
    drawn = [c for c in collections if c.layout is not None and c.layout.chunks]
    # Empty collections own 0 bytes: then chunks are the only amount worth drawing.
    as_bytes = (
        bool(drawn)
        and all(c.owned_bytes is not None for c in drawn)
        and any(sum((c.owned_bytes or {}).values()) for c in drawn)
    )
    out: dict[Cell, float] = {}
    for c in drawn:
        assert c.layout is not None
        for (shard, zone), n in c.layout.zone_chunks().items():
            amount = float(n)
            if as_bytes and c.owned_bytes is not None:
                amount = c.owned_bytes.get(shard, 0) * n / max(c.per_shard.get(shard, 0), 1)
            out[(shard, zone)] = out.get((shard, zone), 0.0) + amount
    return out, as_bytes


def zone_bytes_section(
    shards: Sequence[tuple[str, tuple[str, ...]]],
    collections: Sequence[CollectionStatus],
    zone_colour: Mapping[str, str],
) -> str:
    """The bars (one per shard: its zones in brackets) and their table."""
    amounts, as_bytes = zone_amounts(collections)
    if not amounts:
        return '<p class="note">No chunks were read: nothing to draw per shard.</p>\n'
    unit = format_bytes if as_bytes else (lambda v: plural(round(v), "chunk"))
    zones = [z for z in zone_colour if any(k[1] == z for k in amounts)]
    order: list[str | None] = [*zones, None]
    names = [s for s, _ in shards] + sorted({k[0] for k in amounts} - {s for s, _ in shards})
    carried = dict(shards)
    top = max(sum(v for (s, _), v in amounts.items() if s == name) for name in names) or 1.0
    row_h, height = 26, 26 * len(names) + 8
    parts = [
        f'<svg class="zonebytes" viewBox="0 0 1000 {height}" role="img" '
        f'aria-label="{"bytes" if as_bytes else "chunks"} per shard by zone">',
        f"<title>{'Bytes' if as_bytes else 'Chunks'} per shard by zone</title>",
    ]
    for r, shard in enumerate(names):
        y = 4 + r * row_h
        label = f"{shard} [{', '.join(carried.get(shard, ())) or '-'}]"
        parts.append(f'<text x="0" y="{y + 15}">{esc(label[:40])}</text>')
        x = 250.0
        for zone in order:
            v = amounts.get((shard, zone), 0.0)
            if not v:
                continue
            w = 640.0 * v / top
            fill = zone_colour.get(zone, NO_ZONE) if zone is not None else NO_ZONE
            name = zone or "no zone"
            stray = zone is not None and zone not in carried.get(shard, ())
            edge = (
                'stroke="#000" stroke-width="2" stroke-dasharray="4 2"'
                if stray
                else ('stroke="#fff" stroke-width="0.5"')
            )
            parts.append(
                f'<rect class="zonebar" data-shard="{esc(shard)}" data-zone="{esc(name)}" '
                f'x="{x:.1f}" y="{y}" width="{max(w, 0.5):.1f}" height="20" fill="{fill}" '
                f"{edge}>"
                f"<title>{esc(shard)}: {esc(name)} {esc(unit(v))}</title></rect>"
            )
            x += w
        total = sum(amounts.get((shard, z), 0.0) for z in order)
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 15}">{esc(unit(total))}</text>')
    parts.append("</svg>\n")
    keys = legend([*((z, zone_colour[z]) for z in zones), ("no zone", NO_ZONE)])
    rows = [
        [shard, zone or "(no zone)", unit(v), "yes" if zone in carried.get(shard, ()) else "no"]
        for shard in names
        for zone in order
        if (v := amounts.get((shard, zone), 0.0))
    ]
    note = (
        ""
        if as_bytes
        else '<p class="note">Counted in chunks: the server reports no '
        "owned bytes before 6.0.3 ($shardedDataDistribution).</p>\n"
    )
    dashed = '<p class="note">A dashed black outline: data of a zone the shard is not in.</p>\n'
    alt = alternative(
        "Per shard by zone as a table",
        table(["shard", "zone", "amount", "shard in zone"], rows, label="zonebytes-table"),
    )
    return "".join(parts) + keys + dashed + note + alt
