"""`$listClusterCatalog` through real pymongo: absent before 8.0.10 (test_union_with.py pins
8.0.4's 40324), answered on 8.0.10+ and 8.3 as MongoDB's source builds it (see
zonectl/sandbox/commands/cluster_catalog.py): every listCollections entry with `ns`/`db`,
sharding fields, options, its errors and privileges. The expectations come from
jstests/core/catalog/agg_list_cluster_catalog*.js and its privileges jstest (named per test)."""

from __future__ import annotations

from typing import Any

import pytest
from bson import MaxKey, MinKey
from pymongo.errors import OperationFailure

from zonectl.sandbox.auth.users import AuthConfig, User
from zonectl.sandbox.catalog.cluster import COLLECTIONS
from zonectl.sandbox.state import Sandbox

STAGE = "$listClusterCatalog"
SHARDS = ("s0", "s1", "s2")


def _sandbox(version: str, **kwargs: Any) -> Sandbox:
    sb = Sandbox(version, **kwargs)
    for shard in SHARDS:
        sb.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", ())
    bounds = [{"x": MinKey()}, {"x": 10}, {"x": 20}, {"x": MaxKey()}]
    sb.cluster.create_collection("app.a", {"x": 1}, bounds=bounds, shards=["s0", "s1", "s0"])
    sb.cluster.create_collection("logs.events", {"t": 1}, bounds=bounds[::3], shards=["s2"])
    sb.catalog.ensure("app.plain").put({"_id": 1})  # unsharded, on app's primary
    return sb


def _served(sandbox_server: Any, version: str, **kwargs: Any) -> Any:
    return sandbox_server(sandbox=_sandbox(version, **kwargs))


def _by_ns(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {d["ns"]: d for d in docs}


@pytest.mark.parametrize("version", ["8.0.10", "8.3"])
def test_on_admin_it_lists_the_collections_of_every_database(
    sandbox_server: Any, version: str
) -> None:
    """agg_list_cluster_catalog.js: on admin, every database's collections (admin and config
    included), each as its listCollections entry with `ns` and `db` instead of `name`."""
    sb = _served(sandbox_server, version)
    found = _by_ns(list(sb.client.admin.aggregate([{STAGE: {}}])))
    for db in ("app", "logs", "admin", "config"):
        listed = list(sb.client[db].list_collections())
        assert listed, db
        for entry in listed:
            doc = found[f"{db}.{entry['name']}"]
            assert doc["db"] == db and "name" not in doc
            for field in ("type", "options", "info", "idIndex"):
                assert doc.get(field) == entry.get(field), (db, field)
    assert {"app.a", "app.plain", "logs.events", "config.chunks"} <= set(found)


@pytest.mark.parametrize("version", ["8.0.10", "8.3"])
def test_default_fields_say_sharded_and_the_shard_key_only(
    sandbox_server: Any, version: str
) -> None:
    sb = _served(sandbox_server, version)
    found = _by_ns(list(sb.client.admin.aggregate([{STAGE: {}}])))
    assert found["app.a"]["sharded"] is True and found["app.a"]["shardKey"] == {"x": 1}
    assert found["app.plain"]["sharded"] is False and "shardKey" not in found["app.plain"]
    for doc in found.values():
        assert not {"tracked", "shards", "balancingEnabled", "chunkSize"} & set(doc)
        assert list(doc)[:2] == ["ns", "db"]


def test_options_add_tracked_shards_and_balancing_fields(sandbox_server: Any) -> None:
    """agg_list_cluster_catalog_sharding_fields.js: `shards` lists the chunks' owners of a
    tracked collection and the primary of an untracked one; balancing fields for sharded
    collections only; chunkSize the cluster default in MB when the collection has none."""
    sb = _served(sandbox_server, "8.3")
    spec = {"shards": True, "tracked": True, "balancingConfiguration": True}
    found = _by_ns(list(sb.client.admin.aggregate([{STAGE: spec}])))
    primary = sb.client.config.databases.find_one({"_id": "app"})["primary"]
    sharded, plain = found["app.a"], found["app.plain"]
    assert sharded["tracked"] is True and sorted(sharded["shards"]) == ["s0", "s1"]
    assert found["logs.events"]["shards"] == ["s2"]
    assert plain["tracked"] is False and plain["shards"] == [primary]
    assert sharded["balancingEnabled"] is True and sharded["autoMergingEnabled"] is True
    assert sharded["balancingEnabledReason"] == {"enableBalancing": True, "allowMigrations": True}
    assert sharded["chunkSize"] == 128  # the 8.x default, no chunksize setting
    assert not {"balancingEnabled", "autoMergingEnabled", "chunkSize"} & set(plain)


# agg_list_cluster_catalog_sharding_fields.js: (noBalance, permitMigrations) -> balancingEnabled
BALANCING_TABLE = [
    (None, False, False),
    (True, None, False),
    (True, True, False),
    (True, False, False),
    (False, None, True),
    (False, True, True),
    (False, False, False),
    (None, None, True),
    (None, True, True),
]


def test_balancing_enabled_follows_no_balance_and_permit_migrations(sandbox_server: Any) -> None:
    sb = _served(sandbox_server, "8.3")
    for no_balance, permit, enabled in BALANCING_TABLE:
        doc = sb.sandbox.cluster.collection_doc("app.a")
        doc = {k: v for k, v in doc.items() if k not in ("noBalance", "permitMigrations")}
        if no_balance is not None:
            doc["noBalance"] = no_balance
        if permit is not None:
            doc["permitMigrations"] = permit
        sb.sandbox.cluster.coll(COLLECTIONS).put(doc)
        pipeline = [{STAGE: {"balancingConfiguration": True}}, {"$match": {"ns": "app.a"}}]
        (found,) = list(sb.client.app.aggregate(pipeline))
        assert found["balancingEnabled"] is enabled, (no_balance, permit)
        reason = found["balancingEnabledReason"]
        assert reason["enableBalancing"] is (not no_balance)
        assert reason["allowMigrations"] is (True if permit is None else permit)


def test_collection_chunk_size_and_auto_merger_are_reported(sandbox_server: Any) -> None:
    sb = _served(sandbox_server, "8.3")
    sb.client.admin.command(
        {"configureCollectionBalancing": "app.a", "chunkSize": 32, "enableAutoMerger": False}
    )
    sb.client.config.settings.update_one({"_id": "chunksize"}, {"$set": {"value": 64}}, upsert=True)
    found = _by_ns(list(sb.client.admin.aggregate([{STAGE: {"balancingConfiguration": True}}])))
    assert found["app.a"]["chunkSize"] == 32.0 and isinstance(found["app.a"]["chunkSize"], float)
    assert found["app.a"]["autoMergingEnabled"] is False
    assert found["logs.events"]["chunkSize"] == 64 and found["logs.events"]["autoMergingEnabled"]


def test_on_a_database_it_lists_that_database_only(sandbox_server: Any) -> None:
    sb = _served(sandbox_server, "8.3")
    assert {d["ns"] for d in sb.client.app.aggregate([{STAGE: {}}])} == {"app.a", "app.plain"}
    assert list(sb.client.nothing_here.aggregate([{STAGE: {}}])) == []
    later = [{STAGE: {}}, {"$match": {"db": "logs"}}, {"$project": {"_id": 0, "ns": 1}}]
    assert list(sb.client.admin.aggregate(later)) == [{"ns": "logs.events"}]


@pytest.mark.parametrize(
    ("command", "code", "text"),
    [
        (
            {"aggregate": "a", "pipeline": [{STAGE: {}}], "cursor": {}},
            9621301,
            "must run on a database, not a collection",
        ),
        ({"aggregate": 1, "pipeline": [{STAGE: "wrong"}], "cursor": {}}, 9621302, "object"),
        (
            {"aggregate": 1, "pipeline": [{STAGE: {"Shards": True}}], "cursor": {}},
            40415,
            "BSON field '$listClusterCatalog.Shards' is an unknown field.",
        ),
        (
            {"aggregate": 1, "pipeline": [{STAGE: {"shards": 1}}], "cursor": {}},
            14,
            "should be a boolean value",
        ),
        (
            {"aggregate": 1, "pipeline": [{STAGE: {"tracked": None}}], "cursor": {}},
            14,
            "should be a boolean value",
        ),
        (
            {"aggregate": 1, "pipeline": [{STAGE: {}}, {STAGE: {}}], "cursor": {}},
            40602,
            "only valid as the first stage",
        ),
    ],
)
def test_malformed_requests_fail_as_the_server_fails_them(
    sandbox_server: Any, command: dict[str, Any], code: int, text: str
) -> None:
    sb = _served(sandbox_server, "8.3")
    with pytest.raises(OperationFailure) as caught:
        sb.client.app.command(command)
    assert caught.value.code == code
    assert text in str(caught.value)


USERS = AuthConfig(
    users=[
        User("root", "admin", "pw", ("root",)),
        User("monitor", "admin", "pw", ("clusterMonitor",)),
        User("adminreader", "admin", "pw", ("read",)),
        User("appreader", "admin", "pw", (("read", "app"),)),
    ],
    iterations_sha256=4096,
    iterations_sha1=4096,
)


def test_privileges_follow_the_database_it_runs_on(sandbox_server: Any) -> None:
    """mongo's jstest "privileges of using $listClusterCatalog" (a ShardingTest): on admin
    the cluster action listClusterCatalog (clusterMonitor has it, `read` on admin does not);
    on another database listCollections there (`read` on it)."""
    sb = _served(sandbox_server, "8.3", auth=USERS)

    def run(user: str, db: str) -> int:
        client = sb.new_client(username=user, password="pw", authSource="admin")
        try:
            client[db].command({"aggregate": 1, "pipeline": [{STAGE: {}}], "cursor": {}})
        except OperationFailure as exc:
            return int(exc.code or 0)
        return 0

    assert run("monitor", "admin") == 0
    assert run("monitor", "app") == 13
    assert run("adminreader", "admin") == 13
    assert run("appreader", "app") == 0
    assert run("appreader", "logs") == 13
    assert run("appreader", "admin") == 13
