"""moveCollection as the 8.0 sandbox answers it over the wire, and its absence before 8.0."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from bson import MaxKey, MinKey
from pymongo.errors import OperationFailure
from unsharded_kit import T0, ticking

from zonectl.sandbox.seed import persist
from zonectl.sandbox.state import Sandbox


def _code(exc: pytest.ExceptionInfo[OperationFailure]) -> str:
    return str((exc.value.details or {}).get("codeName"))


@pytest.mark.parametrize("version", ["5.0", "6.0", "7.0"])
def test_move_collection_is_unknown_before_8_0(served: Any, version: str) -> None:
    sb = served(version)
    with pytest.raises(OperationFailure) as exc:
        sb.client.admin.command({"moveCollection": "shop.orders", "toShard": "s1"})
    assert _code(exc) == "CommandNotFound"


def test_missing_and_sharded_namespaces_answer_namespace_not_found(served: Any) -> None:
    sb = served()
    admin = sb.client.admin
    with pytest.raises(OperationFailure) as exc:
        admin.command({"moveCollection": "nodb.nothing", "toShard": "s1"})
    assert _code(exc) == "NamespaceNotFound"
    admin.command("shardCollection", "shop.sharded", key={"k": 1})
    with pytest.raises(OperationFailure) as exc:
        admin.command({"moveCollection": "shop.sharded", "toShard": "s1"})
    assert _code(exc) == "NamespaceNotFound"


def test_missing_to_shard_is_an_idl_parse_failure(served: Any) -> None:
    with pytest.raises(OperationFailure) as exc:
        served().client.admin.command({"moveCollection": "shop.orders"})
    assert _code(exc) == "IDLFailedToParse"


def test_time_series_is_refused_and_view_is_not_found(served: Any) -> None:
    admin = served().client.admin
    with pytest.raises(OperationFailure) as exc:
        admin.command({"moveCollection": "shop.metrics", "toShard": "s1"})
    assert _code(exc) == "IllegalOperation"
    with pytest.raises(OperationFailure) as exc:
        admin.command({"moveCollection": "shop.report_view", "toShard": "s1"})
    assert _code(exc) == "NamespaceNotFound"


def test_moved_collection_is_unsplittable_with_one_chunk_on_the_target(served: Any) -> None:
    sb = served()
    with ticking(sb.sandbox):
        sb.client.admin.command({"moveCollection": "shop.eventlog", "toShard": "s2"})
    config = sb.client.config
    entry = config.collections.find_one({"_id": "shop.eventlog"})
    assert entry is not None and entry["unsplittable"] is True
    chunks = list(config.chunks.find({"uuid": entry["uuid"]}))
    assert [c["shard"] for c in chunks] == ["s2"]


def test_move_takes_at_least_five_simulated_minutes(served: Any) -> None:
    sb = served()
    with ticking(sb.sandbox, dt.timedelta(seconds=10)):
        sb.client.admin.command({"moveCollection": "shop.carts", "toShard": "s1"})
    elapsed = sb.sandbox.clock.now() - T0
    assert elapsed >= dt.timedelta(minutes=5)


@pytest.mark.timeout(60)
def test_a_move_on_a_virtual_clock_nobody_steps_ends_at_its_due_instant(served: Any) -> None:
    sb = served()
    # shop.carts is nearly empty: the move lasts the resharding minimum (5 minutes) and a
    # few ms of copy; the quiet sandbox jumps its clock to that end (an alarm, as a
    # migration's commit), not beyond it.
    sb.client.admin.command({"moveCollection": "shop.carts", "toShard": "s1"})
    elapsed = sb.sandbox.clock.now() - T0
    assert dt.timedelta(minutes=5) <= elapsed < dt.timedelta(minutes=5, seconds=1)
    assert sb.client.config.reshardingOperations.count_documents({}) == 0


def test_in_flight_move_shows_in_resharding_operations_and_a_second_move_is_refused(
    served: Any,
) -> None:
    sb = served()
    done = threading.Event()

    def move() -> None:
        sb.new_client().admin.command({"moveCollection": "shop.orders", "toShard": "s1"})
        done.set()

    thread = threading.Thread(target=move, daemon=True)
    config = sb.client.config
    with sb.sandbox.clock.held():  # else the quiet clock jumps to the move's end
        thread.start()
        for _ in range(500):
            running = config.reshardingOperations.find_one({"ns": "shop.orders"})
            if running is not None:
                break
            threading.Event().wait(0.01)
        assert running is not None
        assert running["provenance"] == "moveCollection"
        # The manual's way to watch it: $currentOp, matched on originatingCommand.
        pipeline = [
            {"$currentOp": {"allUsers": True, "localOps": False}},
            {"$match": {"type": "op", "originatingCommand.reshardCollection": "shop.orders"}},
        ]
        (op,) = list(sb.client.admin.aggregate(pipeline))
        assert op["remainingOperationTimeEstimatedSecs"] >= 300
        assert running["recipientShards"][0]["id"] == "s1"
        with pytest.raises(OperationFailure) as exc:
            sb.client.admin.command({"moveCollection": "shop.carts", "toShard": "s2"})
        assert _code(exc) == "ReshardCollectionInProgress"
        assert not done.is_set()
        with ticking(sb.sandbox):
            assert done.wait(10)
    thread.join()
    assert config.reshardingOperations.count_documents({}) == 0


def test_insert_into_new_database_registers_it_with_a_primary(served: Any) -> None:
    sb = served("7.0")
    sb.client.newdb.things.insert_one({"a": 1})
    doc = sb.client.config.databases.find_one({"_id": "newdb"})
    assert doc is not None and doc["primary"] in {"s0", "s1", "s2"}


def test_list_collections_reports_views_time_series_and_capped(served: Any) -> None:
    sb = served("7.0")
    entries = {e["name"]: e for e in sb.client.shop.list_collections()}
    assert entries["report_view"]["type"] == "view"
    assert entries["metrics"]["type"] == "timeseries"
    assert "system.buckets.metrics" in entries
    assert entries["eventlog"]["options"]["capped"] is True
    assert entries["orders"]["type"] == "collection"


def test_coll_stats_and_list_databases_answer_for_unsharded_collections(served: Any) -> None:
    sb = served("7.0")
    stats = sb.client.shop.command("collStats", "orders")
    assert (stats["sharded"], stats["primary"], stats["size"]) == (False, "s0", 3221225472)
    listing = sb.client.admin.command("listDatabases")
    shop = next(d for d in listing["databases"] if d["name"] == "shop")
    assert shop["shards"]["s0"] >= 3221225472


def test_kinds_sizes_and_moves_survive_a_saved_state(
    served: Any, sandbox_server: Any, tmp_path: Any
) -> None:
    sb = served()
    with ticking(sb.sandbox):
        sb.client.admin.command({"moveCollection": "shop.carts", "toShard": "s2"})
    persist.save(sb.sandbox, tmp_path / "state.bin")
    again = Sandbox("8.0")
    persist.load(again, tmp_path / "state.bin")
    client = sandbox_server("8.0", sandbox=again).client
    entries = {e["name"]: e for e in client.shop.list_collections()}
    assert entries["metrics"]["type"] == "timeseries"
    assert entries["eventlog"]["options"]["capped"] is True
    assert client.shop.command("collStats", "orders")["size"] == 3221225472
    entry = client.config.collections.find_one({"_id": "shop.carts"})
    assert entry is not None and entry["unsplittable"] is True


@pytest.mark.parametrize("version", ["8.0", "8.3"])
def test_a_moved_collection_is_still_unsharded_to_every_balancer_and_chunk_command(
    served: Any, version: str
) -> None:
    """An 8.0 unsplittable collection has a config.chunks entry, yet the balancer and chunk
    commands answer NamespaceNotSharded (reference mongo-semantics.md §2.4, §4.2:
    jstests/sharding/move_range_basic.js); the sandbox moved its one chunk on moveRange."""
    sb = served(version)
    admin = sb.client.admin
    with ticking(sb.sandbox):
        admin.command({"moveCollection": "shop.orders", "toShard": "s1"})
    whole = {"min": {"_id": MinKey()}, "max": {"_id": MaxKey()}}
    for cmd in (
        {"balancerCollectionStatus": "shop.orders"},
        {"configureCollectionBalancing": "shop.orders", "chunkSize": 64},
        {"moveRange": "shop.orders", "toShard": "s2", **whole},
        {"moveChunk": "shop.orders", "to": "s2", "find": {"_id": 1}},
        {"split": "shop.orders", "middle": {"_id": 1}},
        {"mergeChunks": "shop.orders", "bounds": [whole["min"], whole["max"]]},
        {"mergeAllChunksOnShard": "shop.orders", "shard": "s1"},
        {"setAllowMigrations": "shop.orders", "allowMigrations": False},
        {"refineCollectionShardKey": "shop.orders", "key": {"_id": 1, "a": 1}},
    ):
        with pytest.raises(OperationFailure) as exc:
            admin.command(cmd)
        assert _code(exc) == "NamespaceNotSharded", cmd
    (chunk,) = sb.client.config.chunks.find({"uuid": _uuid(sb, "shop.orders")})
    assert chunk["shard"] == "s1"


def _uuid(sb: Any, ns: str) -> Any:
    return sb.client.config.collections.find_one({"_id": ns})["uuid"]
