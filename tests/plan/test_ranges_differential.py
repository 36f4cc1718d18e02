"""plan/ranges.py computes each range's BSON identity once (diff_ranges) and sorts no keys
for a single range (check_ranges): the same ops in the same order, and the same ordered
ranges and problems, as the straightforward versions kept here as the reference, over
generated ranges (numbers equal across types, MinKey/MaxKey, strings, repeats)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from bson.int64 import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.diagnostics import Position
from zonectl.model.cluster import LiveRange
from zonectl.model.keys import compare, sort_key
from zonectl.plan.ops import AssignZoneRange, Op, RemoveZoneRange, format_range
from zonectl.plan.ranges import Problems, WantedRange, check_ranges, diff_ranges

_VALUES = st.one_of(
    st.integers(-3, 3),
    st.integers(-3, 3).map(float),  # 1.0 is 1 in BSON order
    st.integers(-3, 3).map(Int64),
    st.sampled_from([MinKey(), MaxKey(), "a", "b"]),
)
_BOUND = st.fixed_dictionaries({"x": _VALUES})
_ZONE = st.sampled_from(["hot", "cold"])
_WANTED = st.lists(
    st.builds(WantedRange, _ZONE, _BOUND, _BOUND, st.builds(Position, st.just("p.yaml"))),
    max_size=4,
)
_LIVE = st.lists(st.builds(LiveRange, st.just("db.c"), _ZONE, _BOUND, _BOUND), max_size=4)


def _diff_reference(ns: str, wanted: list[WantedRange], live: list[LiveRange]) -> list[Op]:
    def ident(zone: str, lo: Mapping[str, Any], hi: Mapping[str, Any]) -> tuple[Any, ...]:
        return (sort_key(lo), sort_key(hi), zone)

    wanted_ids = {ident(r.zone, r.min, r.max) for r in wanted}
    live_ids = {ident(r.zone, r.min, r.max) for r in live}
    removals = [
        RemoveZoneRange(ns, r.zone, r.min, r.max)
        for r in live
        if ident(r.zone, r.min, r.max) not in wanted_ids
    ]
    additions = [
        AssignZoneRange(ns, r.zone, r.min, r.max)
        for r in wanted
        if ident(r.zone, r.min, r.max) not in live_ids
    ]
    removals.sort(key=lambda op: ident(op.zone, op.min, op.max))
    additions.sort(key=lambda op: ident(op.zone, op.min, op.max))
    return [*removals, *additions]


def _check_reference(ns: str, ranges: list[WantedRange], problems: Problems) -> list[WantedRange]:
    for r in ranges:
        if compare(r.min, r.max) >= 0:
            problems.error(r.position, f"{ns}: range {format_range(r.min, r.max)} has min >= max")
    ordered = sorted(ranges, key=lambda r: (sort_key(r.min), sort_key(r.max), r.zone))
    for a, b in itertools.pairwise(ordered):
        if compare(b.min, a.max) < 0:
            problems.error(
                b.position,
                f"{ns}: range {format_range(b.min, b.max)} of zone {b.zone} overlaps "
                f"{format_range(a.min, a.max)} of zone {a.zone}",
            )
    return ordered


@given(wanted=_WANTED, live=_LIVE)
@settings(max_examples=300, deadline=None)
def test_diff_ranges_gives_the_reference_s_ops_in_its_order(
    wanted: list[WantedRange], live: list[LiveRange]
) -> None:
    ours = diff_ranges("db.c", wanted, tuple(live))
    assert [repr(op) for op in ours] == [repr(op) for op in _diff_reference("db.c", wanted, live)]


@given(wanted=_WANTED)
@settings(max_examples=300, deadline=None)
def test_check_ranges_orders_and_reports_as_the_reference(wanted: list[WantedRange]) -> None:
    ours, theirs = Problems(), Problems()
    ordered = check_ranges("db.c", {"x": 1}, wanted, ours)
    assert [repr(r) for r in ordered] == [repr(r) for r in _check_reference("db.c", wanted, theirs)]
    assert ours == theirs
