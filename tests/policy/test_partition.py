"""`partition: <field>` (a multi-hotspot key): validate checks that the ranges cover the key
space by whole values of the key's first field (ZP211-ZP213), at file:line:col, exit 3.
HEAD gives shard s0 the zones hot and cold; the collection starts at line 6."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.policy.conftest import HEAD

Diagnose = Callable[..., list[str]]
Run = Callable[..., tuple[int, str, str]]
MIN, MAX = "{$minKey: 1}", "{$maxKey: 1}"


def _policy(*ranges: str, partition: str = "bucket", key: str = "{bucket: 1, ts: 1}") -> str:
    lines = [f"  app.e:\n    key: {key}\n    partition: {partition}\n    ranges:\n"]
    lines += [f"      - {r}\n" for r in ranges]
    return "".join(lines)


GOOD = (
    f"{{zone: hot, min: {{bucket: {MIN}}}, max: {{bucket: 3}}}}",
    f"{{zone: cold, min: {{bucket: 3}}, max: {{bucket: {MAX}}}}}",
)


def test_ranges_covering_the_key_space_by_whole_values_are_valid(diagnose: Diagnose) -> None:
    assert diagnose(_policy(*GOOD)) == []
    # The top may also be written padded: {bucket: MaxKey, ts: MaxKey}.
    top = f"{{zone: cold, min: {{bucket: 3}}, max: {{bucket: {MAX}, ts: {MAX}}}}}"
    assert diagnose(_policy(GOOD[0], top)) == []


def test_a_gap_between_ranges_is_an_error_at_the_later_range(diagnose: Diagnose) -> None:
    gap = f"{{zone: cold, min: {{bucket: 5}}, max: {{bucket: {MAX}}}}}"
    assert diagnose(_policy(GOOD[0], gap)) == [
        "p.yaml:11:27: error ZP212 partition by bucket: nothing covers [{ bucket: 3, ts: "
        "MinKey }, { bucket: 5, ts: MinKey }) between [{ bucket: MinKey, ts: MinKey }, "
        "{ bucket: 3, ts: MinKey }) of zone hot (line 10) and [{ bucket: 5, ts: MinKey }, "
        "{ bucket: MaxKey, ts: MinKey }) of zone cold\n  hint: end one range where the next begins"
    ]


def test_missing_ends_are_errors_at_the_lowest_and_highest_range(diagnose: Diagnose) -> None:
    found = diagnose(_policy("{zone: hot, min: {bucket: 1}, max: {bucket: 3}}"))
    assert [d.split(" ", 3)[:3] for d in found] == [
        ["p.yaml:10:26:", "error", "ZP212"],
        ["p.yaml:10:44:", "error", "ZP212"],
    ]
    assert "nothing covers the values below { bucket: 1, ts: MinKey }" in found[0]
    assert "hint: start the lowest range at {bucket: {$minKey: 1}}" in found[0]
    assert "nothing covers the values from { bucket: 3, ts: MinKey }" in found[1]


def test_a_bound_inside_a_value_gives_two_zones_the_same_bucket(diagnose: Diagnose) -> None:
    date = '{$date: "2026-01-01T00:00:00Z"}'
    low = f"{{zone: hot, min: {{bucket: {MIN}}}, max: {{bucket: 3, ts: {date}}}}}"
    high = f"{{zone: cold, min: {{bucket: 3, ts: {date}}}, max: {{bucket: {MAX}}}}}"
    found = diagnose(_policy(low, high))
    assert [d.split(" ", 3)[:3] for d in found] == [
        ["p.yaml:10:55:", "error", "ZP213"],
        ["p.yaml:11:27:", "error", "ZP213"],
    ]
    assert "splits the bucket value 3 at ts: part of it could go to another zone" in found[0]


def test_overlapping_buckets_stay_an_overlap_error(diagnose: Diagnose) -> None:
    other = f"{{zone: cold, min: {{bucket: 2}}, max: {{bucket: {MAX}}}}}"
    found = diagnose(_policy(GOOD[0], other))
    assert [d.split(" ", 3)[2] for d in found] == ["ZP203"]


@pytest.mark.parametrize(
    ("partition", "key", "why"),
    [
        ("ts", "{bucket: 1, ts: 1}", "is not the first field of the shard key"),
        ("bucket", '{bucket: "hashed", ts: 1}', "is hashed"),
    ],
)
def test_partition_names_the_ranged_first_field(
    diagnose: Diagnose, partition: str, key: str, why: str
) -> None:
    whole = f"{{zone: hot, min: {{bucket: {MIN}}}, max: {{bucket: {MAX}}}}}"
    bounds = GOOD if "hashed" not in key else (whole,)
    found = diagnose(_policy(*bounds, partition=partition, key=key))
    assert len(found) == 1 and found[0].startswith("p.yaml:8:16: error ZP211 ")
    assert why in found[0]


def test_partition_without_ranges_is_uncovered(diagnose: Diagnose) -> None:
    found = diagnose("  app.e:\n    key: {bucket: 1, ts: 1}\n    partition: bucket\n")
    assert found == [
        "p.yaml:8:16: error ZP212 partition by bucket of app.e has no ranges to cover the key "
        "space\n  hint: add ranges from MinKey to MaxKey"
    ]


def test_validate_exits_3_on_a_partition_error(zonectl: Run, workdir: Path) -> None:
    gap = f"{{zone: cold, min: {{bucket: 5}}, max: {{bucket: {MAX}}}}}"
    (workdir / "p.yaml").write_text(HEAD + _policy(GOOD[0], gap))
    code, out, err = zonectl("validate", "p.yaml")
    assert code == 3 and out == ""
    assert "p.yaml:11:27: error ZP212" in err
