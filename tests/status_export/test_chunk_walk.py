"""The streaming merge-walk agrees with the definition (reference §5.2) checked chunk by
chunk: random tilings of a key space, random non-overlapping ranges, random owners."""

from __future__ import annotations

from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.model.cluster import LiveRange
from zonectl.model.keys import compare, range_contains, ranges_overlap
from zonectl.mongo.chunk_scan import scan_compliance

SHARDS = {"a": ("z0",), "b": ("z1",), "c": ("z0", "z1"), "d": ()}
# Leading values of mixed BSON types (numbers across types, strings, bool): the fast
# comparison must agree with the full BSON order on all of them.
VALUES = st.one_of(
    st.integers(-50, 50), st.floats(-50, 50, allow_nan=False), st.sampled_from(["a", "m", "z"])
)


def bound(lead: Any, second: Any = None) -> dict[str, Any]:
    return {"k": lead, "j": MinKey() if second is None else second}


def sorted_distinct(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in sorted(values, key=lambda v: (type(v) is str, v)):  # numbers < strings in BSON
        if not out or compare(out[-1], v) != 0:
            out.append(v)
    return out


@st.composite
def layouts(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[LiveRange]]:
    points = sorted_distinct(draw(st.lists(VALUES, max_size=25)))
    lo, hi = {"k": MinKey(), "j": MinKey()}, {"k": MaxKey(), "j": MaxKey()}
    cuts = [lo, *(bound(p) for p in points), hi]
    owners = draw(st.lists(st.sampled_from(sorted(SHARDS)), min_size=len(cuts), max_size=len(cuts)))
    chunks = [
        {"min": cuts[i], "max": cuts[i + 1], "shard": owners[i]} for i in range(len(cuts) - 1)
    ]
    # Ranges from their own cut points (often strictly inside chunks), never overlapping.
    marks = sorted_distinct(draw(st.lists(VALUES, max_size=12)))
    range_cuts = [lo, *(bound(m, draw(st.sampled_from([None, 0, "x"]))) for m in marks), hi]
    ranges = [
        LiveRange(
            "db.c", draw(st.sampled_from(["z0", "z1", "z2"])), range_cuts[i], range_cuts[i + 1]
        )
        for i in range(len(range_cuts) - 1)
        if draw(st.booleans())
    ]
    return chunks, ranges


def oracle(chunks: list[dict[str, Any]], ranges: list[LiveRange]) -> tuple[int, int]:
    outside = straddling = 0
    for c in chunks:
        inside = [r for r in ranges if range_contains(r.min, r.max, c["min"], c["max"])]
        crossing = [
            r
            for r in ranges
            if ranges_overlap(r.min, r.max, c["min"], c["max"]) and r not in inside
        ]
        if crossing:
            straddling += 1
        elif inside and inside[0].zone not in SHARDS[c["shard"]]:
            outside += 1
    return outside, straddling


@settings(max_examples=300, deadline=None)
@given(layouts())
def test_the_merge_walk_counts_what_the_definition_counts(
    layout: tuple[list[dict[str, Any]], list[LiveRange]],
) -> None:
    chunks, ranges = layout
    result = scan_compliance(iter(chunks), ranges, SHARDS, "k")
    assert (result.outside_zone, result.straddling) == oracle(chunks, ranges)
    assert result.chunks == len(chunks)
    assert sum(result.per_shard.values()) == len(chunks)


@settings(max_examples=100, deadline=None)
@given(layouts(), st.data())
def test_chunks_that_do_not_continue_each_other_are_located_afresh(
    layout: tuple[list[dict[str, Any]], list[LiveRange]], data: st.DataObject
) -> None:
    """A cursor can skip chunks (a split or merge between batches): a dropped chunk must not
    shift the zone of the ones after it."""
    chunks, ranges = layout
    kept = [c for c in chunks if data.draw(st.booleans())]
    result = scan_compliance(iter(kept), ranges, SHARDS, "k")
    assert (result.outside_zone, result.straddling) == oracle(kept, ranges)
