"""make_pieces against its earlier, plainer form (kept here as the reference): the same
pieces, bounds and zones for any chunks and zone ranges, overlapping and touching ranges,
equal bounds of different types (the last given wins) and compound keys included."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from bson import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.forecast.inputs import Range, make_pieces
from zonectl.model.keys import compare, sort_key


def reference_pieces(
    chunks: Sequence[Mapping[str, Any]], ranges: Sequence[Range]
) -> list[tuple[Any, ...]]:
    """make_pieces as it was before it computed each bound's key once."""
    ordered = sorted(ranges, key=lambda r: sort_key(r[0]))
    mins = [sort_key(r[0]) for r in ordered]
    bounds = sorted({sort_key(b): b for r in ranges for b in (r[0], r[1])}.items())
    keys = [k for k, _ in bounds]
    out: list[tuple[Any, ...]] = []
    for c in chunks:
        lo, hi = sort_key(c["min"]), sort_key(c["max"])
        inside = [
            b for _, b in bounds[bisect.bisect_right(keys, lo) : bisect.bisect_left(keys, hi)]
        ]
        edges = [c["min"], *inside, c["max"]]
        share = 1.0 / (len(edges) - 1)
        for a, b in itertools.pairwise(edges):
            i = bisect.bisect_right(mins, sort_key(a)) - 1
            zone = ordered[i][2] if i >= 0 and compare(b, ordered[i][1]) <= 0 else None
            out.append((a, b, str(c["shard"]), zone, share, bool(c.get("jumbo"))))
    return out


# Values where int and Int64 collide (equal keys, different objects), with the extremes.
_value = st.one_of(
    st.integers(0, 4),
    st.integers(0, 4).map(Int64),
    st.just(MinKey()),
    st.just(MaxKey()),
)
_fields = st.sampled_from([("x",), ("x", "y")])


@st.composite
def _layout(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[Range]]:
    fields = draw(_fields)

    def bound() -> dict[str, Any]:
        return {f: draw(_value) for f in fields}

    ranges: list[Range] = []
    for _ in range(draw(st.integers(0, 4))):
        lo, hi = sorted([bound(), bound()], key=sort_key)
        ranges.append((lo, hi, draw(st.sampled_from(["hot", "cold", "warm"]))))
    # Chunks in key order: consecutive split points from MinKey to MaxKey (some equal
    # bounds too, as a read of a mid-change catalog may give).
    points = sorted((bound() for _ in range(draw(st.integers(0, 5)))), key=sort_key)
    edges = [dict.fromkeys(fields, MinKey()), *points, dict.fromkeys(fields, MaxKey())]
    chunks = [
        {
            "min": lo,
            "max": hi,
            "shard": draw(st.sampled_from(["a", "b", "c"])),
            **({"jumbo": True} if draw(st.booleans()) else {}),
        }
        for lo, hi in itertools.pairwise(edges)
    ]
    return chunks, ranges


def _typed(value: Any) -> Any:
    """The value with each bound's field types spelt out (Int64(5) == 5, and reprs alike)."""
    if isinstance(value, Mapping):
        return tuple((k, type(v).__name__, repr(v)) for k, v in value.items())
    return value


def _exact(rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [tuple(_typed(v) for v in r) for r in rows]


@settings(max_examples=400, deadline=None)
@given(_layout())
def test_pieces_match_the_reference(layout: tuple[list[dict[str, Any]], list[Range]]) -> None:
    chunks, ranges = layout
    assert _exact(make_pieces(chunks, ranges)) == _exact(reference_pieces(chunks, ranges))


def test_a_chunk_across_two_ranges_is_cut_at_their_bounds() -> None:
    ranges: list[Range] = [({"x": 0}, {"x": 10}, "hot"), ({"x": Int64(10)}, {"x": 20}, "cold")]
    chunk = {"min": {"x": 5}, "max": {"x": 15}, "shard": "a"}
    pieces = make_pieces([chunk], ranges)
    assert [(p.min, p.max, p.zone, p.share) for p in pieces] == [
        ({"x": 5}, {"x": Int64(10)}, "hot", 0.5),
        ({"x": Int64(10)}, {"x": 15}, "cold", 0.5),
    ]
