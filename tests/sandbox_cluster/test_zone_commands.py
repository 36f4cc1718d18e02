"""addShardToZone / removeShardFromZone / updateZoneKeyRange over pymongo (reference §1)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from bson import Binary, Decimal128, Int64, MaxKey, MinKey, ObjectId
from pymongo.errors import OperationFailure


def fails(admin: Any, code: int, *args: Any, **kwargs: Any) -> dict[str, Any]:
    with pytest.raises(OperationFailure) as info:
        admin.command(*args, **kwargs)
    assert info.value.code == code, info.value.details
    return dict(info.value.details or {})


def tags(handle: Any, ns: str = "test.c") -> list[tuple[Any, Any, str]]:
    docs = handle.client.config.tags.find({"ns": ns}, sort=[("min", 1)])
    return [(d["min"], d["max"], d["tag"]) for d in docs]


def test_add_shard_to_zone_creates_tags_in_insertion_order_and_is_idempotent(cluster: Any) -> None:
    admin, config = cluster.client.admin, cluster.client.config
    assert "tags" not in config.shards.find_one({"_id": "s0"})
    admin.command("addShardToZone", "s0", zone="x")
    admin.command("addShardToZone", "s0", zone="y")
    admin.command("addshardtozone", "s0", zone="x")
    assert config.shards.find_one({"_id": "s0"})["tags"] == ["x", "y"]


def test_remove_last_zone_leaves_empty_array_and_missing_zone_is_a_noop(cluster: Any) -> None:
    admin, config = cluster.client.admin, cluster.client.config
    admin.command("addShardToZone", "s0", zone="x")
    admin.command("removeShardFromZone", "s0", zone="x")
    admin.command("removeshardfromzone", "s0", zone="x")
    admin.command("removeShardFromZone", "s1", zone="never")
    assert config.shards.find_one({"_id": "s0"})["tags"] == []
    assert "tags" not in config.shards.find_one({"_id": "s1"})


def test_zone_commands_parse_errors(cluster: Any) -> None:
    admin = cluster.client.admin
    details = fails(admin, 70, "addShardToZone", "nope", zone="x")
    assert details["errmsg"] == "shard nope does not exist"
    assert details["codeName"] == "ShardNotFound"
    fails(admin, 70, "removeShardFromZone", "nope", zone="x")
    assert fails(admin, 4, "addShardToZone", "s0")["errmsg"] == 'Missing expected field "zone"'
    msg = fails(admin, 14, "addShardToZone", "s0", zone=5)["errmsg"]
    assert msg == '"zone" had the wrong type. Expected string, found int'


def test_zone_commands_are_admin_only_and_refuse_write_concern(cluster: Any) -> None:
    client = cluster.client
    details = fails(client.test, 13, "addShardToZone", "s0", zone="x")
    assert "may only be run against the admin database" in details["errmsg"]
    details = fails(client.admin, 72, "updateZoneKeyRange", "test.c", min={"x": 0},
                    max={"x": 1}, zone=None, writeConcern={"w": 1})  # fmt: skip
    assert details["errmsg"] == "Command does not support writeConcern"


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ({"updateZoneKeyRange": 35}, 14, None),
        ({"updateZoneKeyRange": "badns"}, 73, "badns is not a valid namespace"),
        ({"updateZoneKeyRange": "test.c", "max": {"x": 1}, "zone": "z"}, 4,
         "The field 'min' cannot be parsed :: caused by :: Missing expected field \"min\""),
        ({"updateZoneKeyRange": "test.c", "min": 35, "max": {"x": 1}, "zone": "z"}, 14, None),
        ({"updateZoneKeyRange": "test.c", "min": {}, "max": {"x": 1}, "zone": "z"}, 2,
         "The field 'min' cannot be empty"),
        ({"updateZoneKeyRange": "test.c", "min": {"x": 1}, "zone": "z"}, 4, None),
        ({"updateZoneKeyRange": "test.c", "min": {"x": 10}, "max": {"x": 0}, "zone": "z"}, 9,
         "min: { x: 10 } should be less than max: { x: 0 }"),
        ({"updateZoneKeyRange": "test.c", "min": {"x": 5}, "max": {"x": 5}, "zone": None}, 9,
         None),
        ({"updateZoneKeyRange": "test.c", "min": {"x": 0}, "max": {"x": 5}}, 4, None),
        ({"updateZoneKeyRange": "test.c", "min": {"x": 0}, "max": {"x": 5}, "zone": 3}, 14, None),
    ],
)  # fmt: skip
def test_update_zone_key_range_mongos_parsing_follows_reference_table(
    cluster: Any, body: dict[str, Any], code: int, message: str | None
) -> None:
    details = fails(cluster.client.admin, code, body)
    if message is not None:
        assert details["errmsg"] == message


@pytest.mark.parametrize(
    ("high", "low", "shown"),
    [
        (Int64(10), Int64(0), ("10", "0")),
        (dt.datetime(2026, 1, 2, tzinfo=dt.UTC), dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
         ("new Date(1767312000000)", "new Date(1767225600000)")),
        (ObjectId("65a000000000000000000001"), ObjectId("65a000000000000000000000"),
         ("ObjectId('65a000000000000000000001')", "ObjectId('65a000000000000000000000')")),
        (1e20, 2.5, ("1e+20.0", "2.5")),
        (3.0, 0.1 + 0.2, ("3.0", "0.3")),
        ('b"q', "a", ('"b"q"', '"a"')),
        (Binary(b"\x01\xab", 0), Binary(b"\x01", 0), ("BinData(0, 01AB)", "BinData(0, 01)")),
        (Decimal128("2.50"), Decimal128("1"), ("2.50", "1")),
        ({"a": []}, {}, ("{ a: [] }", "{}")),
    ],
)  # fmt: skip
def test_bounds_in_messages_are_shown_as_mongos_shows_them(
    cluster: Any, high: Any, low: Any, shown: tuple[str, str]
) -> None:
    """BSONObj::toString (mongo:src/mongo/bson/bsonelement.cpp): a NumberLong or decimal is its
    bare number, a date `new Date(ms)`, an ObjectId in single quotes, BinData in upper-case
    hex, a double by appendDoubleNice (%.16g, `.0` added), strings unescaped."""
    details = fails(cluster.client.admin, 9, "updateZoneKeyRange", "test.c", min={"x": high},
                    max={"x": low}, zone="z")  # fmt: skip
    assert (
        details["errmsg"]
        == f"min: {{ x: {shown[0]} }} should be less than max: {{ x: {shown[1]} }}"
    )


def test_assign_stores_padded_bounds_and_identical_readd_is_noop(cluster: Any) -> None:
    admin = cluster.client.admin
    admin.command("shardCollection", "test.compound", key={"x": 1, "y": 1})
    admin.command("addShardToZone", "s0", zone="z")
    admin.command("updateZoneKeyRange", "test.compound", min={"x": 0}, max={"x": 10}, zone="z")
    admin.command("updatezonekeyRange", "test.compound", min={"x": 0}, max={"x": 10}, zone="z")
    doc = cluster.client.config.tags.find_one({"ns": "test.compound"})
    assert doc["min"] == {"x": 0, "y": MinKey()} and doc["max"] == {"x": 10, "y": MinKey()}
    assert list(doc) == ["_id", "ns", "min", "max", "tag"]
    assert cluster.client.config.tags.count_documents({"ns": "test.compound"}) == 1
    # Removal with the unpadded prefix works, as the request is padded the same way.
    admin.command("updateZoneKeyRange", "test.compound", min={"x": 0}, max={"x": 10}, zone=None)
    assert tags(cluster, "test.compound") == []


def test_zone_must_exist_and_zone_check_runs_before_key_fitting(cluster: Any) -> None:
    admin = cluster.client.admin
    details = fails(admin, 177, "updateZoneKeyRange", "test.c", min={"y": 0}, max={"y": 1},
                    zone="ghost")  # fmt: skip
    assert details["errmsg"] == "zone ghost does not exist"
    admin.command("addShardToZone", "s0", zone="z")
    details = fails(admin, 61, "updateZoneKeyRange", "test.c", min={"y": 0}, max={"y": 1}, zone="z")
    assert (
        details["errmsg"] == "min: { y: 0 } is not a prefix of the shard key { x: 1 } of ns: test.c"
    )


def test_overlap_rules(cluster: Any) -> None:
    admin = cluster.client.admin
    admin.command("addShardToZone", "s0", zone="a")
    admin.command("addShardToZone", "s1", zone="b")
    admin.command("updateZoneKeyRange", "test.c", min={"x": 0}, max={"x": 10}, zone="a")
    admin.command("updateZoneKeyRange", "test.c", min={"x": 10}, max={"x": 20}, zone="b")  # touch
    for lo, hi, zone in [(-10, 5, "a"), (5, 15, "a"), (-5, 30, "b"), (2, 3, "a"), (0, 10, "b")]:
        details = fails(admin, 178, "updateZoneKeyRange", "test.c", min={"x": lo},
                        max={"x": hi}, zone=zone)  # fmt: skip
        assert "is overlapping with existing" in details["errmsg"]
    # Numbers compare by value: NumberLong(0) is the same bound as 0.
    admin.command("updateZoneKeyRange", "test.c", min={"x": Int64(0)}, max={"x": 10.0}, zone="a")
    admin.command("updateZoneKeyRange", "other.ns", min={"x": 0}, max={"x": 10}, zone="b")
    assert tags(cluster) == [({"x": 0}, {"x": 10}, "a"), ({"x": 10}, {"x": 20}, "b")]


def test_remove_range_that_matches_nothing_is_silent(cluster: Any) -> None:
    admin = cluster.client.admin
    admin.command("addShardToZone", "s0", zone="a")
    admin.command("updateZoneKeyRange", "test.c", min={"x": 0}, max={"x": 10}, zone="a")
    admin.command("updateZoneKeyRange", "test.c", min={"x": -5}, max={"x": 10}, zone=None)
    admin.command("updateZoneKeyRange", "test.c", min={"x": 0}, max={"x": 11}, zone=None)
    assert len(tags(cluster)) == 1
    admin.command("updateZoneKeyRange", "test.c", min={"x": 0}, max={"x": 10}, zone=None)
    assert tags(cluster) == []


def test_unsharded_namespace_ranges_need_matching_fields_and_are_stored_as_given(
    cluster: Any,
) -> None:
    admin = cluster.client.admin
    admin.command("addShardToZone", "s0", zone="a")
    admin.command("updateZoneKeyRange", "nodb.coll", min={"a": 1}, max={"a": 5}, zone="a")
    assert tags(cluster, "nodb.coll") == [({"a": 1}, {"a": 5}, "a")]
    details = fails(admin, 61, "updateZoneKeyRange", "nodb.coll", min={"a": 6}, max={"b": 9},
                    zone="a")  # fmt: skip
    assert "doesn't match with the shard key of max" in details["errmsg"]


def test_hashed_key_ranges_need_number_long(cluster: Any) -> None:
    admin = cluster.client.admin
    admin.command("shardCollection", "test.h", key={"h": "hashed"})
    admin.command("addShardToZone", "s0", zone="a")
    details = fails(admin, 72, "updateZoneKeyRange", "test.h", min={"h": 5}, max={"h": Int64(9)},
                    zone="a")  # fmt: skip
    assert "not of type NumberLong, MinKey, or MaxKey" in details["errmsg"]
    admin.command(
        "updateZoneKeyRange", "test.h", min={"h": MinKey()}, max={"h": Int64(0)}, zone="a"
    )


def test_array_bound_is_not_valid_for_storage(cluster: Any) -> None:
    admin = cluster.client.admin
    admin.command("addShardToZone", "s0", zone="a")
    fails(admin, 2, "updateZoneKeyRange", "test.c", min={"x": [1]}, max={"x": MaxKey()}, zone="a")


def test_zone_still_in_use_only_for_the_last_holder_with_ranges(cluster: Any) -> None:
    admin = cluster.client.admin
    admin.command("addShardToZone", "s0", zone="a")
    admin.command("addShardToZone", "s1", zone="a")
    # A range on a namespace that does not exist still counts (§1.3).
    admin.command("updateZoneKeyRange", "ghost.coll", min={"k": 0}, max={"k": 1}, zone="a")
    admin.command("removeShardFromZone", "s1", zone="a")  # another holder remains
    details = fails(admin, 163, "removeShardFromZone", "s0", zone="a")
    assert details["errmsg"] == (
        "cannot remove a shard from zone if a chunk range is associated with it"
    )
    admin.command("updateZoneKeyRange", "ghost.coll", min={"k": 0}, max={"k": 1}, zone=None)
    admin.command("removeShardFromZone", "s0", zone="a")
