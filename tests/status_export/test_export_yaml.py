"""build_policy on plain ClusterState values: what the YAML says about what was found, and
that every bound type loads back as the same BSON value (so plans stay empty)."""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path
from typing import Any

import pytest
from bson import Binary, Decimal128, Int64, ObjectId
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.model.cluster import ClusterState, LiveBalancer, LiveCollection, LiveRange, LiveShard
from zonectl.model.keys import bson_equal
from zonectl.policy.export import build_policy

AT = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
LO, HI = {"ts": MinKey(), "_id": MinKey()}, {"ts": MaxKey(), "_id": MaxKey()}


def state(**kwargs: Any) -> ClusterState:
    base: dict[str, Any] = {
        "version": "7.0.16",
        "shards": (LiveShard("a", zones=("hot",)), LiveShard("b", zones=("cold",), draining=True)),
    }
    return ClusterState(**{**base, **kwargs})


def export(cs: ClusterState, **kwargs: Any) -> str:
    text, _ = build_policy(cs, source="mongodb://h/", at=AT, **kwargs)
    return text


def test_mongodb_own_collections_are_left_out_and_said_so() -> None:
    cs = state(collections={"config.system.sessions": LiveCollection("config.system.sessions",
                                                                       {"_id": 1})})  # fmt: skip
    text = export(cs)
    assert "# Not exported (MongoDB's own): config.system.sessions." in text
    assert "config.system.sessions:" not in text


def test_a_draining_shard_and_a_stopped_balancer_with_a_window_are_marked() -> None:
    cs = state(
        balancer=LiveBalancer(
            "off", stopped=True, active_window={"start": "23:00", "stop": "06:00"}
        )
    )
    text = export(cs)
    assert "  enabled: false" in text and "# found: mode off, stopped" in text
    assert '  activeWindow: {start: "23:00", stop: "06:00"}' in text
    # The server reports no zone for its local time, so the export asks for one.
    assert "# found: config server local time; state its zone as balancer.timezone" in text
    assert "timezone:" not in text
    assert "  b: {state: removed}" in text
    assert "# found: draining (a removal in progress; zones cold)" in text


def test_two_ranges_meeting_at_a_date_are_flagged_as_a_possible_firehose_window() -> None:
    split = {"ts": dt.datetime(2026, 3, 1, tzinfo=dt.UTC), "_id": MinKey()}
    cs = state(
        collections={"app.e": LiveCollection("app.e", {"ts": 1, "_id": 1})},
        ranges=(LiveRange("app.e", "cold", LO, split), LiveRange("app.e", "hot", split, HI)),
    )
    assert 'a time split at ts = ISODate("2026-03-01T00:00:00.000Z"): a firehose window?' in (
        export(cs)
    )


def test_a_zone_with_ranges_but_no_shard_is_a_warning() -> None:
    cs = state(ranges=(LiveRange("app.x", "gone", {"k": 1}, {"k": 2}),))
    _, warnings = build_policy(cs, source="s", at=AT)
    assert warnings == [
        "app.x: zone gone has ranges but no shard carries it; plan will refuse this policy "
        "until a shard is listed for it under `shards`"
    ]


VALUES = [
    0,
    -(2**31),
    Int64(5),
    Int64(2**62),
    2.5,
    -0.5,
    float("inf"),
    "2026-01-01",
    "yes",
    "null",
    "with \"quotes\" and 'ticks'",
    "",
    True,
    None,
    dt.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=dt.UTC),
    dt.datetime(1950, 6, 1, tzinfo=dt.UTC),
    ObjectId("65a0c0ffee0000000000abcd"),
    Decimal128("2.50"),
    Binary(b"\x00\x01\xff", 0),
    Binary(bytes(range(16)), 4),
    uuid.UUID("00112233-4455-6677-8899-aabbccddeeff"),
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_every_bound_value_loads_back_as_the_same_bson_value(value: Any, tmp_path: Path) -> None:
    from zonectl.policy import load_policy

    lo, hi = {"k": value}, {"k": MaxKey()}
    cs = state(shards=(LiveShard("a", zones=("z",)),), ranges=(LiveRange("app.u", "z", lo, hi),))
    (tmp_path / "p.yaml").write_text(export(cs))
    loaded = load_policy([tmp_path / "p.yaml"])
    [r] = loaded.desired.collections["app.u"].ranges
    assert bson_equal(r.min, lo)
    if isinstance(value, int | float | Decimal128):  # NumberLong must stay NumberLong
        assert type(r.min["k"]) is type(value)
