"""`partition:` on generated ranges: cut points chosen at random over the bucket values,
each run of values to a zone. Covering MinKey to MaxKey is valid; dropping any one range
leaves exactly one ZP212, at that place; a cut inside a bucket is a ZP213."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zonectl.errors import InvalidPolicyError
from zonectl.policy import load_policy

MIN, MAX = {"$minKey": 1}, {"$maxKey": 1}
_cuts = st.lists(st.integers(-50, 50), min_size=0, max_size=7, unique=True).map(sorted)
_SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _ranges(cuts: list[int]) -> list[dict[str, Any]]:
    edges: list[Any] = [MIN, *cuts, MAX]
    return [
        {"zone": f"z{i % 3}", "min": {"bucket": lo}, "max": {"bucket": hi}}
        for i, (lo, hi) in enumerate(itertools.pairwise(edges))
    ]


def _codes(workdir: Path, ranges: list[dict[str, Any]]) -> list[str]:
    policy = {
        "apiVersion": "zonectl/v1",
        "kind": "ZonePolicy",
        "shards": {"s0": ["z0"], "s1": ["z1"], "s2": ["z2"]},
        "collections": {
            "app.x": {"key": {"bucket": 1, "ts": 1}, "partition": "bucket", "ranges": ranges}
        },
    }
    (workdir / "p.yaml").write_text(json.dumps(policy))
    try:
        return [d.code for d in load_policy(["p.yaml"]).diagnostics]
    except InvalidPolicyError as exc:
        return [d.code for d in exc.diagnostics]


@_SETTINGS
@given(cuts=_cuts)
def test_ranges_from_minkey_to_maxkey_are_a_valid_partition(workdir: Path, cuts: list[int]) -> None:
    assert _codes(workdir, _ranges(cuts)) == []


@_SETTINGS
@given(cuts=_cuts.filter(lambda c: len(c) >= 1), data=st.data())
def test_dropping_one_range_leaves_exactly_one_gap(
    workdir: Path, cuts: list[int], data: st.DataObject
) -> None:
    ranges = _ranges(cuts)
    dropped = data.draw(st.integers(0, len(ranges) - 1))
    assert _codes(workdir, ranges[:dropped] + ranges[dropped + 1 :]) == ["ZP212"]


@_SETTINGS
@given(cuts=_cuts.filter(lambda c: len(c) >= 1), data=st.data())
def test_a_cut_inside_a_bucket_is_named(
    workdir: Path, cuts: list[int], data: st.DataObject
) -> None:
    ranges = _ranges(cuts)
    i = data.draw(st.integers(0, len(ranges) - 2))
    # Move the shared bound of ranges i and i+1 inside the bucket: {bucket: c, ts: 5}.
    inside = {**ranges[i]["max"], "ts": 5}
    ranges[i]["max"] = inside
    ranges[i + 1]["min"] = dict(inside)
    assert _codes(workdir, ranges) == ["ZP213", "ZP213"]
