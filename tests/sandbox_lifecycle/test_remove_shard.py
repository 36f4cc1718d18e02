"""removeShard per version, over pymongo (ports jstests/sharding/remove_shard*.js,
remove_shard_with_zones.js; reply fields from appendShardDrainingStatus and the manual)."""

from __future__ import annotations

from typing import Any

import pytest
from bson import Int64
from pymongo.errors import OperationFailure

OLD_NOTE = "you need to drop or movePrimary these databases"
NEW_NOTE = (
    "you need to call moveCollection for collectionsToMove and afterwards movePrimary for the "
    "dbsToMove"
)


def fails(call: Any, code: int) -> str:
    with pytest.raises(OperationFailure) as info:
        call()
    assert info.value.code == code, info.value.details
    return str(info.value.details["errmsg"])


@pytest.mark.parametrize("version", ["5.0", "6.0", "7.0", "8.0", "8.3"])
def test_remove_shard_goes_started_ongoing_completed(make_cluster: Any, version: str) -> None:
    """remove_shard.js: first call starts draining, later calls report, the last removes."""
    c = make_cluster(version, placement=["shard1"] * 3)
    started = c.admin.command("removeShard", "shard1")
    new = version >= "8.0"
    assert {
        k: v for k, v in started.items() if k not in ("ok", "$clusterTime", "operationTime")
    } == {
        "msg": "draining started successfully",
        "state": "started",
        "shard": "shard1",
        "note": NEW_NOTE if new else OLD_NOTE,
        "dbsToMove": ["db"],
        **({"collectionsToMove": []} if new else {}),
    }
    assert c.shard("shard1")["draining"] is True
    ongoing = c.admin.command("removeShard", "shard1")
    remaining = {"chunks": 3, "dbs": 1, "jumboChunks": 0}
    if new:
        remaining["collectionsToMove"] = 0
    if version == "8.3":
        remaining["estimatedRemainingBytes"] = 3 * 512 * 1024
    assert ongoing["msg"] == "draining ongoing" and ongoing["state"] == "ongoing"
    assert ongoing["remaining"] == remaining
    assert all(isinstance(v, Int64) for v in ongoing["remaining"].values())
    assert ongoing["dbsToMove"] == ["db"] and "shard" not in ongoing
    c.balancer.run_until_stable()
    c.admin.command("movePrimary", "db", to="shard0")
    done = c.admin.command("removeShard", "shard1")
    assert (done["msg"], done["state"], done["shard"]) == (
        "removeshard completed successfully",
        "completed",
        "shard1",
    )
    assert c.shard("shard1") is None
    whats = [d["what"] for d in c.client.config.changelog.find({"details.shard": "shard1"})]
    assert whats == ["removeShard.start", "removeShard"]


@pytest.mark.parametrize("version", ["5.0", "8.3"])
def test_unknown_shard_is_shard_not_found(make_cluster: Any, version: str) -> None:
    """remove_shard.js: "Returns an error when trying to remove a shard that doesn't exist"."""
    c = make_cluster(version)
    assert fails(lambda: c.admin.command("removeShard", "shardz"), 70) == "Shard shardz not found"


@pytest.mark.parametrize(
    ("version", "verb"), [("6.0", "remove"), ("8.0", "remove"), ("8.3", "drain")]
)
def test_two_shards_may_drain_but_never_the_last_non_draining_one(
    make_cluster: Any, version: str, verb: str
) -> None:
    """The count of *other* shards not draining must be positive (removeShard,
    checkPreconditionsAndStartDrain): a second drain is allowed while a third shard stays."""
    c = make_cluster(version)
    c.admin.command("removeShard", "shard1")
    assert c.admin.command("removeShard", "shard2")["state"] == "started"
    message = fails(lambda: c.admin.command("removeShard", "shard0"), 20)
    assert message == f"Operation not allowed because it would {verb} the last shard"
    # The check runs on every call: the draining shards still answer.
    assert c.admin.command("removeShard", "shard1")["state"] == "ongoing"


@pytest.mark.parametrize("version", ["7.0", "8.3"])
def test_the_only_shard_of_a_zone_with_ranges_cannot_drain(make_cluster: Any, version: str) -> None:
    """remove_shard_with_zones.js: ZoneStillInUse while the shard alone holds a zone that
    has ranges; once another shard joins the zone the drain starts."""
    c = make_cluster(version)
    c.admin.command("addShardToZone", "shard2", zone="z")
    c.admin.command("updateZoneKeyRange", "db.c", min={"x": 1}, max={"x": 3}, zone="z")
    message = fails(lambda: c.admin.command("removeShard", "shard2"), 163)
    if version == "8.3":
        assert message == (
            "Operation not allowed because there is no other shard in zone z to drain to."
        )
    else:
        assert message == (
            "Operation not allowed because it would remove the only shard for zone z which "
            "has a chunk range is associated with it"
        )
    assert not c.shard("shard2").get("draining")
    c.admin.command("addShardToZone", "shard0", zone="z")
    assert c.admin.command("removeShard", "shard2")["state"] == "started"


def test_collections_to_move_lists_unsharded_collections_on_8_0(make_cluster: Any) -> None:
    """SERVER-89883 / SERVER-101043: unsharded collections on the shard; views and system
    collections excluded, a time-series collection listed once by its name."""
    c = make_cluster("8.0", placement=["shard0"] * 2)
    db = c.client["db"]  # primary shard1
    db["plain"].insert_one({"a": 1})
    db.create_collection("ts", timeseries={"timeField": "t"})
    db.create_collection("v", viewOn="plain", pipeline=[])
    c.admin.command("enableSharding", "other", primaryShard="shard0")
    c.client["other"]["elsewhere"].insert_one({"a": 1})
    c.admin.command("removeShard", "shard1")
    ongoing = c.admin.command("removeShard", "shard1")
    assert ongoing["collectionsToMove"] == ["db.plain", "db.ts"]
    assert ongoing["remaining"]["collectionsToMove"] == 2
    assert ongoing["note"] == NEW_NOTE


def test_8_0_leaves_the_note_out_when_nothing_is_left_to_move(make_cluster: Any) -> None:
    """appendDBAndCollDrainingInfo: the note only when dbsToMove or collectionsToMove has
    entries; dbsToMove is always there."""
    c = make_cluster("8.0", placement=["shard1"] * 2)
    c.admin.command("movePrimary", "db", to="shard0")
    started = c.admin.command("removeShard", "shard1")
    assert "note" not in started
    assert started["dbsToMove"] == [] and started["collectionsToMove"] == []
