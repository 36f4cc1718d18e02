"""A collection's key space as a strip: zone ranges as bands, chunks coloured by shard,
out-of-zone and straddling chunks marked, range boundaries drawn. Chunks are laid out by
their order in the key space (every chunk the same width), binned past MAX_BINS so a
million chunks draw as a few hundred rectangles; the table alternative lists the runs."""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zonectl.model.keys import format_value
from zonectl.model.layout import OUTSIDE, STRADDLING, ChunkLayout
from zonectl.render.html.markup import alternative, esc, legend, table
from zonectl.render.html.palette import MARK, NO_ZONE, SHARD_COLOURS, ZONE_COLOURS, colours
from zonectl.render.summary import plural

MAX_BINS = 600  # chunk columns drawn at most; more chunks share a column
MAX_BANDS = 300  # zone runs drawn one by one at most; more are drawn per column
MAX_LABELS = 40  # boundaries labelled at most
MAX_ROWS = 200  # rows of the table alternative; more runs are summed per zone
LEFT, WIDTH = 92.0, 900.0  # the strip's x origin and width in SVG units
VIEW_WIDTH = 1000.0  # the viewBox's width
EDGE = 2.0  # a label's least distance from the picture's edges
LABEL_CHARS = 64  # a bound's label is cut past this


@dataclass(frozen=True)
class Column:
    start: int  # chunk ordinals [start, end)
    end: int
    shard: str  # the shard holding most of them
    share: float  # its share of the column
    outside: int
    straddling: int


def bin_columns(layout: ChunkLayout, max_bins: int = MAX_BINS) -> list[Column]:
    """Consecutive chunks grouped into at most `max_bins` columns of near-equal size."""
    n = layout.chunks
    bins = min(n, max_bins)
    out: list[Column] = []
    for b in range(bins):
        lo, hi = b * n // bins, (b + 1) * n // bins
        seg = layout.shard_of[lo:hi]
        kinds = layout.kind[lo:hi]
        counts = [seg.count(i) for i in range(len(layout.shards))] if hi - lo > 1 else []
        top = max(range(len(counts)), key=counts.__getitem__) if counts else seg[0]
        share = counts[top] / (hi - lo) if counts else 1.0
        out.append(
            Column(lo, hi, layout.shards[top], share, kinds.count(OUTSIDE), kinds.count(STRADDLING))
        )
    return out


def _x(ordinal: float, n: int) -> float:
    return LEFT + WIDTH * ordinal / max(n, 1)


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _bound(b: Mapping[str, Any] | None) -> str:
    if b is None:
        return "?"
    return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in b.items()) + "}"


def _bands(layout: ChunkLayout, cols: Sequence[Column]) -> list[tuple[int, int, str | None]]:
    """(start, end, zone) of the bands drawn: each zone run, or per column past MAX_BANDS."""
    n = layout.chunks
    if len(layout.runs) <= MAX_BANDS:
        return [(r.start, layout.run_end(i), r.zone) for i, r in enumerate(layout.runs)]
    starts = [r.start for r in layout.runs]
    bands: list[tuple[int, int, str | None]] = []
    for c in cols:
        zone = layout.runs[bisect.bisect_right(starts, c.start) - 1].zone
        if bands and bands[-1][2] == zone:
            bands[-1] = (bands[-1][0], c.end, zone)
        else:
            bands.append((c.start, c.end, zone))
    if bands:
        bands[-1] = (bands[-1][0], n, bands[-1][2])
    return bands


def strip_svg(
    ns: str,
    layout: ChunkLayout,
    zone_colour: Mapping[str, str],
    shard_colour: Mapping[str, str],
) -> str:
    """The strip; colours are given so a shard has one colour on the whole page."""
    n = layout.chunks
    cols = bin_columns(layout)
    shard_colour = {**colours(layout.shards, SHARD_COLOURS), **shard_colour}
    parts = [
        f'<svg class="strip" data-ns="{esc(ns)}" data-chunks="{n}" data-columns="{len(cols)}" '
        f'viewBox="0 0 {_f(VIEW_WIDTH)} 132" role="img" aria-label="{esc(f"key space of {ns}")}">',
        f"<title>{esc(f'Key space of {ns}: zones, chunks by shard, out-of-zone marks')}</title>",
        '<text x="0" y="19">zones</text><text x="0" y="53">chunks</text>',
        '<text x="0" y="85">outside</text><text x="0" y="101">straddling</text>',
    ]
    for lo, hi, zone in _bands(layout, cols):
        x0, x1 = _x(lo, n), _x(hi, n)
        fill = zone_colour.get(zone, NO_ZONE) if zone is not None else NO_ZONE
        name = zone if zone is not None else "no zone"
        parts.append(
            f'<rect class="zone" data-zone="{esc(name)}" x="{_f(x0)}" y="6" '
            f'width="{_f(max(x1 - x0, 0.3))}" height="20" fill="{fill}" stroke="#fff" '
            f'stroke-width="0.5"><title>{esc(name)}: chunks {lo}-{hi - 1}</title></rect>'
        )
        if x1 - x0 > 8 * len(name) and zone is not None:
            parts.append(f'<text x="{_f(x0 + 3)}" y="20">{esc(name)}</text>')
    i = 0
    while i < len(cols):  # adjacent columns of one shard draw as one rectangle
        j = i
        while j + 1 < len(cols) and cols[j + 1].shard == cols[i].shard:
            j += 1
        x0, x1 = _x(cols[i].start, n), _x(cols[j].end, n)
        shard = cols[i].shard
        parts.append(
            f'<rect class="chunk" data-shard="{esc(shard)}" x="{_f(x0)}" y="32" '
            f'width="{_f(max(x1 - x0, 0.3))}" height="36" fill="{shard_colour[shard]}"/>'
        )
        i = j + 1
    for c in cols:
        x0, w = _x(c.start, n), max(_x(c.end, n) - _x(c.start, n), 1.2)
        if c.outside:
            parts.append(
                f'<rect class="outside" data-chunks="{c.outside}" x="{_f(x0)}" y="76" '
                f'width="{_f(w)}" height="10" fill="{MARK}"><title>{plural(c.outside, "chunk")} '
                f"outside their zone</title></rect>"
            )
        if c.straddling:
            cx = x0 + w / 2
            parts.append(
                f'<path class="straddling" data-chunks="{c.straddling}" '
                f'd="M{_f(cx)} 90l5 6-5 6-5-6z" fill="none" stroke="{MARK}" stroke-width="1.5">'
                f"<title>{plural(c.straddling, 'chunk')} straddling a boundary</title></path>"
            )
    parts += _boundaries(layout)
    parts.append("</svg>\n")
    keys = legend([(s, shard_colour[s]) for s in layout.shards])
    return "".join(parts) + keys


def _boundaries(layout: ChunkLayout) -> list[str]:
    """A line where the zone changes; labelled with the bound while labels fit. A label is
    centred on its line, or held against the picture's edge it would cross (anchored at
    that edge, so it stays inside whatever the font); one that would overlap the previous
    label is left out (the table lists every bound). A bound too long is cut with "…", its
    whole text in the label's tooltip."""
    n = layout.chunks
    out: list[str] = []
    last_end = -1e9
    labelled = 0
    for r in layout.runs[1:] if len(layout.runs) <= MAX_BANDS else ():
        x = _x(r.start, n)
        out.append(
            f'<line class="boundary" x1="{_f(x)}" x2="{_f(x)}" y1="2" y2="110" '
            'stroke="#222" stroke-width="1" stroke-dasharray="3 2"/>'
        )
        whole = _bound(r.min)
        text = whole if len(whole) <= LABEL_CHARS else whole[: LABEL_CHARS - 1] + "…"
        width = label_width(text)
        left = min(max(x - width / 2, EDGE), VIEW_WIDTH - EDGE - width)
        if labelled >= MAX_LABELS or left <= last_end + 6 or left < EDGE:
            continue
        if left == EDGE:
            anchor, at = "start", EDGE
        elif left + width >= VIEW_WIDTH - EDGE:
            anchor, at = "end", VIEW_WIDTH - EDGE
        else:
            anchor, at = "middle", left + width / 2
        tip = f"<title>{esc(whole)}</title>" if text != whole else ""
        out.append(f'<text class="bound" x="{_f(at)}" y="124" text-anchor="{anchor}">'
                   f"{tip}{esc(text)}</text>")  # fmt: skip
        last_end, labelled = left + width, labelled + 1
    return out


# The labels' font is 11px of the reader's sans-serif: widths are reckoned on the widest
# common one (DejaVu Sans, Linux's usual fallback), in ems, so a label never reaches
# further than reckoned; the narrower fonts (system-ui elsewhere) leave more room.
_NARROW = set(" .,:;'\"()[]!|Iijlrtf-")
_WIDE = set("mwMW@%")


def label_width(text: str, size: float = 11.0) -> float:
    """An upper bound of `text`'s width in SVG units at `size`."""
    ems = sum(0.45 if c in _NARROW else 1.0 if c in _WIDE else 0.72 for c in text)
    return ems * size


def strip_notes(layout: ChunkLayout, key: Mapping[str, Any] | None) -> list[str]:
    """What the reader must know to read the strip: binning, hashed order, bounds."""
    n = layout.chunks
    notes = [f"{plural(n, 'chunk')} from {_bound(layout.runs[0].min)} to {_bound(layout.last_max)}"]
    if n > MAX_BINS:
        notes.append(f"binned: {n} chunks drawn as {MAX_BINS} columns of about {n // MAX_BINS} "
                     "chunks, each coloured by the shard holding most of them")  # fmt: skip
    if len(layout.runs) > MAX_BANDS:
        notes.append(f"binned: {len(layout.runs)} zone runs drawn per column (the zone where "
                     "each column starts); the table lists them")  # fmt: skip
    if key is not None and "hashed" in key.values():
        notes.append("hashed key: chunks are in order of the hashed value, not the field's")
    return notes


def strip_table(layout: ChunkLayout) -> str:
    """The runs of one zone in key order with their chunks per shard and marks."""
    rows: list[list[object]] = []
    runs = layout.runs
    summed = len(runs) > MAX_ROWS
    per_zone: dict[str | None, list[int]] = {}
    for i, r in enumerate(runs):
        lo, hi = r.start, layout.run_end(i)
        seg, kinds = layout.shard_of[lo:hi], layout.kind[lo:hi]
        per = [seg.count(k) for k in range(len(layout.shards))]
        if summed:
            acc = per_zone.setdefault(r.zone, [0] * (len(per) + 3))
            for k, v in enumerate([hi - lo, kinds.count(OUTSIDE), kinds.count(STRADDLING), *per]):
                acc[k] += v
            continue
        rows.append(
            [
                _bound(r.min),
                r.zone or "(none)",
                hi - lo,
                kinds.count(OUTSIDE),
                kinds.count(STRADDLING),
                *per,
            ]
        )
    if summed:
        rows = [["(summed)", z or "(none)", *v] for z, v in per_zone.items()]
    headers = ["from", "zone", "chunks", "outside", "straddling", *layout.shards]
    numeric = list(range(2, len(headers)))
    title = "runs summed per zone" if summed else "one row per run of a zone, in key order"
    return alternative(
        f"Key space as a table ({title})",
        table(headers, rows, numeric=numeric, label="strip-table"),
    )


def zone_colours(names: Sequence[str]) -> dict[str, str]:
    return colours(names, ZONE_COLOURS)


def shard_colours(names: Sequence[str]) -> dict[str, str]:
    return colours(names, SHARD_COLOURS)
