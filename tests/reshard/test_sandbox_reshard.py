"""reshardCollection, abortReshardCollection and commitReshardCollection in the sandbox,
against mongo:jstests/sharding/reshard_collection_basic.js, the config server's
configsvr_reshard_collection_cmd.cpp and configsvr_abort_reshard_collection_command.cpp."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey
from pymongo.errors import OperationFailure
from reshard_kit import Background, code_of


def _fails(admin: Any, cmd: dict[str, Any]) -> str:
    with pytest.raises(OperationFailure) as exc:
        admin.command(cmd)
    return code_of(exc.value)


def test_reshard_errors_follow_the_basic_jstest(foo: Callable[..., Any]) -> None:
    sb = foo()
    admin = sb.client.admin
    sb.client.db.plain.insert_one({"x": 1})
    key = {"newKey": 1}
    assert _fails(admin, {"reshardCollection": "nodb.foo", "key": key}) == "NamespaceNotFound"
    assert _fails(admin, {"reshardCollection": "db.plain", "key": key}) == "NamespaceNotSharded"
    assert _fails(admin, {"reshardCollection": "db.foo"}) == "IDLFailedToParse"
    assert _fails(admin, {"reshardCollection": "db.foo", "key": key, "unique": True}) == "BadValue"
    cmd = {"reshardCollection": "db.foo", "key": key, "collation": {"locale": "en_US"}}
    assert _fails(admin, cmd) == "BadValue"
    two_hashed = {"reshardCollection": "db.foo", "key": {"a": "hashed", "b": "hashed"}}
    assert _fails(admin, two_hashed) == "BadValue"
    ghost = {"zone": "x0", "min": {"newKey": 5}, "max": {"newKey": 10}}
    with pytest.raises(OperationFailure) as exc:
        admin.command({"reshardCollection": "db.foo", "key": key, "zones": [ghost]})
    assert exc.value.code == 4952607
    admin.command("updateZoneKeyRange", "db.foo", min={"oldKey": 0}, max={"oldKey": 5}, zone="eu")
    assert _fails(admin, {"reshardCollection": "db.foo", "key": key}) == "BadValue"
    assert sb.client.config.reshardingOperations.count_documents({}) == 0


def test_force_redistribution_needs_the_same_key_on_8_0(foo: Callable[..., Any]) -> None:
    admin = foo("8.0").client.admin
    cmd = {"reshardCollection": "db.foo", "key": {"newKey": 1}, "forceRedistribution": True}
    assert _fails(admin, cmd) == "InvalidOptions"


def test_same_key_is_a_no_op_before_7_2_even_with_force_redistribution(
    foo: Callable[..., Any],
) -> None:
    sb = foo("7.0")
    before = sb.client.config.collections.find_one({"_id": "db.foo"})
    cmd = {"reshardCollection": "db.foo", "key": {"oldKey": 1}, "forceRedistribution": True}
    sb.client.admin.command(cmd)
    assert sb.client.config.collections.find_one({"_id": "db.foo"})["uuid"] == before["uuid"]


def test_reshard_to_a_new_key_replaces_key_uuid_chunks_and_zones(foo: Callable[..., Any]) -> None:
    sb = foo("8.0")
    config, admin = sb.client.config, sb.client.admin
    t0 = sb.sandbox.clock.now()
    before = config.collections.find_one({"_id": "db.foo"})
    admin.command("updateZoneKeyRange", "db.foo", min={"oldKey": 0}, max={"oldKey": 5}, zone="eu")
    zones = [{"zone": "eu", "min": {"newKey": 250}, "max": {"newKey": MaxKey()}}]
    admin.command({"reshardCollection": "db.foo", "key": {"newKey": 1}, "zones": zones})
    after = config.collections.find_one({"_id": "db.foo"})
    assert after["key"] == {"newKey": 1} and after["uuid"] != before["uuid"]
    assert "reshardingFields" not in after
    assert config.reshardingOperations.count_documents({}) == 0
    chunks = list(config.chunks.find({"uuid": after["uuid"]}).sort("min", 1))
    assert chunks[0]["min"] == {"newKey": MinKey()} and chunks[-1]["max"] == {"newKey": MaxKey()}
    in_zone = [c for c in chunks if c["min"]["newKey"] != MinKey() and c["min"]["newKey"] >= 250]
    assert in_zone and all(c["shard"] == "s2" for c in in_zone)
    tags = list(config.tags.find({"ns": "db.foo"}, {"_id": 0}))
    assert tags == [{"ns": "db.foo", "min": {"newKey": 250}, "max": {"newKey": MaxKey()},
                     "tag": "eu"}]  # fmt: skip
    # Every document is still found; each new-key value routes to exactly one chunk.
    docs = list(sb.client.db.foo.find())
    assert len(docs) == 300
    for doc in docs[:20]:
        owners = [c for c in chunks if _within(doc["newKey"], c)]
        assert len(owners) == 1
    # reshardingMinimumOperationDurationMillis: at least five simulated minutes.
    assert sb.sandbox.clock.now() - t0 >= dt.timedelta(minutes=5)


def _within(value: int, chunk: dict[str, Any]) -> bool:
    lo, hi = chunk["min"]["newKey"], chunk["max"]["newKey"]
    return (lo == MinKey() or lo <= value) and (hi == MaxKey() or value < hi)


def test_in_flight_resharding_shows_progress_and_blocks_a_second(
    foo: Callable[..., Any],
) -> None:
    sb = foo("8.0")
    sb.client.admin.command("shardCollection", "db.other", key={"k": 1})
    running = Background(sb, {"reshardCollection": "db.foo", "key": {"newKey": 1}})
    op = sb.client.config.reshardingOperations.find_one()
    assert op["ns"] == "db.foo" and op["reshardingKey"] == {"newKey": 1}
    assert sb.client.config.collections.find_one({"_id": "db.foo"})["allowMigrations"] is False
    second = {"reshardCollection": "db.other", "key": {"j": 1}}
    with pytest.raises(OperationFailure) as exc:
        sb.client.admin.command(second)
    assert exc.value.code == 338
    ops = list(
        sb.client.admin.aggregate(
            [{"$currentOp": {"allUsers": True, "localOps": False}},
             {"$match": {"type": "op", "originatingCommand.reshardCollection": "db.foo"}}]
        )
    )  # fmt: skip
    recipients = [o for o in ops if "recipientState" in o]
    assert recipients and all("remainingOperationTimeEstimatedSecs" in o for o in recipients)
    assert sum(o["approxDocumentsToCopy"] for o in recipients) == 300
    assert any("coordinatorState" in o for o in ops) and any("donorState" in o for o in ops)
    running.join()
    assert running.error is None


def test_abort_leaves_the_collection_as_it_was(foo: Callable[..., Any]) -> None:
    sb = foo("8.0")
    config = sb.client.config
    before = config.collections.find_one({"_id": "db.foo"})
    running = Background(sb, {"reshardCollection": "db.foo", "key": {"newKey": 1}})
    sb.client.admin.command({"abortReshardCollection": "db.foo"})
    running.join()
    assert running.error is not None and running.error.code == 341
    after = config.collections.find_one({"_id": "db.foo"})
    assert after["key"] == before["key"] and after["uuid"] == before["uuid"]
    assert "allowMigrations" not in after and config.reshardingOperations.count_documents({}) == 0
    cmd = {"abortReshardCollection": "db.foo"}
    assert _fails(sb.client.admin, cmd) == "NoSuchReshardCollection"


def test_commit_ends_the_resharding_before_the_minimum_duration(
    foo: Callable[..., Any],
) -> None:
    sb = foo("8.0")
    t0 = sb.sandbox.clock.now()
    running = Background(sb, {"reshardCollection": "db.foo", "key": {"newKey": 1}})
    sb.client.admin.command({"commitReshardCollection": "db.foo"})
    running.join()
    assert running.error is None
    assert sb.client.config.collections.find_one({"_id": "db.foo"})["key"] == {"newKey": 1}
    assert sb.sandbox.clock.now() - t0 < dt.timedelta(minutes=5)


@pytest.mark.parametrize("version", ["5.0", "6.0", "7.0", "8.0"])
def test_every_version_reshards_to_a_new_key_and_refines(
    foo: Callable[..., Any], version: str
) -> None:
    sb = foo(version)
    sb.client.admin.command({"reshardCollection": "db.foo", "key": {"newKey": 1}})
    assert sb.client.config.collections.find_one({"_id": "db.foo"})["key"] == {"newKey": 1}
    sb.client.db.foo.create_index([("newKey", 1), ("tenant", 1)])
    cmd = {"refineCollectionShardKey": "db.foo", "key": {"newKey": 1, "tenant": 1}}
    sb.client.admin.command(cmd)
    assert sb.client.config.collections.find_one({"_id": "db.foo"})["key"] == cmd["key"]


def test_force_redistribution_to_the_same_key_places_chunks_in_the_new_zones(
    foo: Callable[..., Any],
) -> None:
    sb = foo("8.0")
    config = sb.client.config
    before = config.collections.find_one({"_id": "db.foo"})
    zones = [{"zone": "eu", "min": {"oldKey": MinKey()}, "max": {"oldKey": 150}}]
    sb.client.admin.command(
        {"reshardCollection": "db.foo", "key": {"oldKey": 1}, "forceRedistribution": True,
         "zones": zones}
    )  # fmt: skip
    after = config.collections.find_one({"_id": "db.foo"})
    assert after["key"] == {"oldKey": 1} and after["uuid"] != before["uuid"]
    chunks = list(config.chunks.find({"uuid": after["uuid"]}).sort("min", 1))
    assert chunks[0]["shard"] == "s2" and chunks[0]["max"] == {"oldKey": 100}
    assert [t["tag"] for t in config.tags.find({"ns": "db.foo"})] == ["eu"]


def test_a_view_cannot_be_resharded_or_refined(foo: Callable[..., Any]) -> None:
    sb = foo("8.0")
    sb.client.db.command({"create": "foo_view", "viewOn": "foo", "pipeline": []})
    admin = sb.client.admin
    assert _fails(admin, {"reshardCollection": "db.foo_view", "key": {"a": 1}}) == (
        "IllegalOperation"
    )
    refine = {"refineCollectionShardKey": "db.foo_view", "key": {"a": 1, "b": 1}}
    assert _fails(admin, refine) == "NamespaceNotSharded"


def test_a_write_in_the_critical_section_waits_for_the_commit(foo: Callable[..., Any]) -> None:
    from zonectl.sandbox.balancer import resharding

    sb = foo("8.0")
    running = Background(sb, {"reshardCollection": "db.foo", "key": {"newKey": 1}})
    op = resharding.find(sb.sandbox.cluster, "db.foo")
    assert op is not None
    sb.sandbox.clock.set(op.phases.critical_start + dt.timedelta(seconds=1))
    sb.client.db.foo.insert_one({"oldKey": 1000, "newKey": -1})
    assert sb.sandbox.clock.now() >= op.phases.commit
    assert sb.client.config.collections.find_one({"_id": "db.foo"})["key"] == {"newKey": 1}
    running.join()
    assert running.error is None and sb.client.db.foo.count_documents({}) == 301


def test_each_coordinator_state_change_is_logged_at_its_instant(foo: Callable[..., Any]) -> None:
    """MongoDB's coordinator logs `resharding.coordinator.transition` (newState, oldState,
    namespace, collectionUUID, reshardingUUID) at every state change
    (mongo:src/mongo/db/s/resharding/resharding_coordinator.cpp); the forecast learns the
    phases' lengths from them, so each is dated when its phase began."""
    sb = foo("8.0")
    config = sb.client.config
    before = config.collections.find_one({"_id": "db.foo"})
    t0 = sb.sandbox.clock.now()
    sb.client.admin.command({"reshardCollection": "db.foo", "key": {"newKey": 1}})
    log = list(config.changelog.find({"what": "resharding.coordinator.transition"}).sort("time"))
    states = [e["details"]["newState"] for e in log]
    assert states == ["initializing", "preparing-to-donate", "cloning", "applying",
                      "blocking-writes", "committing", "done"]  # fmt: skip
    assert [e["details"]["oldState"] for e in log] == ["unused", *states[:-1]]
    after = config.collections.find_one({"_id": "db.foo"})
    for e in log:
        assert e["ns"] == "db.foo" and e["details"]["namespace"] == "db.foo"
        assert e["details"]["collectionUUID"] == str(before["uuid"].as_uuid())
        assert e["details"]["reshardingUUID"] == str(after["uuid"].as_uuid())
    at = {e["details"]["newState"]: e["time"].replace(tzinfo=dt.UTC) for e in log}
    assert at["cloning"] - t0 < dt.timedelta(seconds=1)
    assert at["cloning"] <= at["applying"] < at["blocking-writes"] < at["committing"]
    # the minimum duration (reshardingMinimumOperationDurationMillis, 5 min) is waited out
    assert at["blocking-writes"] - at["cloning"] >= dt.timedelta(minutes=5)
    assert at["committing"] == at["done"]
