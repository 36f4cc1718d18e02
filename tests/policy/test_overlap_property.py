"""The O(n log n) overlap sweep agrees with the obvious O(n²) check on generated ranges:
an error exactly when two ranges overlap other than as identical same-zone duplicates."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zonectl.errors import InvalidPolicyError
from zonectl.policy import load_policy

_ranges = st.lists(
    st.tuples(st.integers(0, 12), st.integers(1, 4), st.sampled_from(["a", "b"])).map(
        lambda t: (t[0], t[0] + t[1], t[2])
    ),
    min_size=1,
    max_size=8,
)


def _codes(workdir: Path, ranges: list[tuple[int, int, str]]) -> list[str]:
    policy = {
        "apiVersion": "zonectl/v1",
        "kind": "ZonePolicy",
        "shards": {"s0": ["a", "b"]},
        "collections": {
            "app.x": {
                "key": {"k": 1, "i": 1},
                "ranges": [{"zone": z, "min": {"k": lo}, "max": {"k": hi}} for lo, hi, z in ranges],
            }
        },
    }
    (workdir / "p.yaml").write_text(json.dumps(policy))
    try:
        return [d.code for d in load_policy(["p.yaml"]).diagnostics]
    except InvalidPolicyError as exc:
        return [d.code for d in exc.diagnostics]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ranges=_ranges)
def test_sweep_reports_an_overlap_exactly_when_brute_force_finds_one(
    workdir: Path, ranges: list[tuple[int, int, str]]
) -> None:
    conflicting = any(a[0] < b[1] and b[0] < a[1] and a != b for a, b in combinations(ranges, 2))
    duplicated = len(set(ranges)) < len(ranges)
    codes = _codes(workdir, ranges)
    assert ("ZP203" in codes) == conflicting
    if duplicated and not conflicting:
        assert codes.count("ZP204") == len(ranges) - len(set(ranges))
