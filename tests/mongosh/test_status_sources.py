"""What mongosh's `sh.status()` reads besides config.shards/chunks/tags, over pymongo (no
mongosh needed): config.mongos (the mongos uptime report) and `$shardedDataDistribution`."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from bson.int64 import Int64
from pymongo.errors import OperationFailure

from zonectl.sandbox.auth.users import AuthConfig, User
from zonectl.sandbox.clock import Clock
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

NOON = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)


def _demo(sandbox_server: Any, version: str = "7.0") -> Any:
    sb = Sandbox(version, clock=Clock(fixed=NOON))
    seed.seed(sb, seed.load(None))
    return sandbox_server(sandbox=sb)


def test_config_mongos_has_the_servers_uptime_report(sandbox_server: Any, server_version: str):
    h = _demo(sandbox_server, server_version)
    (doc,) = list(h.client.config.mongos.find())
    assert doc["_id"].endswith(f":{h.port}")
    # new fields in name order, as $set/$setOnInsert add them (sharding_uptime_reporter.cpp)
    assert list(doc) == [
        "_id", "advisoryHostFQDNs", "created", "mongoVersion", "ping", "up", "waiting",
    ]  # fmt: skip
    assert doc["mongoVersion"] == h.sandbox.version.version
    assert doc["ping"] == doc["created"] == NOON.replace(tzinfo=None)
    assert doc["waiting"] is True
    # what sh.status() aggregates for "active mongoses"
    groups = list(
        h.client.config.mongos.aggregate(
            [
                {"$match": {"ping": {"$gt": NOON - dt.timedelta(minutes=1)}}},
                {"$group": {"_id": "$mongoVersion", "num": {"$sum": 1}}},
                {"$sort": {"num": -1}},
            ]
        )
    )
    assert groups == [{"_id": h.sandbox.version.version, "num": 1}]


def test_uptime_report_refreshes_ping(sandbox_server: Any):
    h = _demo(sandbox_server)
    h.sandbox.clock.advance(dt.timedelta(seconds=30))
    h.server._uptime.report()  # what the 10 s timer does
    doc = h.client.config.mongos.find_one()
    assert doc["created"] == NOON.replace(tzinfo=None)
    assert doc["ping"] == (NOON + dt.timedelta(seconds=30)).replace(tzinfo=None)


@pytest.mark.parametrize("version", ["6.0", "7.0", "8.0"])
def test_sharded_data_distribution(sandbox_server: Any, version: str):
    h = _demo(sandbox_server, version)
    docs = list(h.client.admin.aggregate([{"$shardedDataDistribution": {}}]))
    assert [d["ns"] for d in docs] == h.sandbox.cluster.sharded_namespaces()
    events = next(d for d in docs if d["ns"] == "app.events")
    store = h.sandbox.cluster.chunks("app.events")
    sizes, counts = store.sizes()
    by_shard: dict[str, list[int]] = {}
    for shard, size, count in zip(store.shards(), sizes, counts, strict=True):
        by_shard.setdefault(shard, [0, 0])
        by_shard[shard][0] += size
        by_shard[shard][1] += count
    assert [s["shardName"] for s in events["shards"]] == sorted(by_shard)
    for entry in events["shards"]:
        size, count = by_shard[entry["shardName"]]
        assert list(entry) == [
            "shardName", "numOrphanedDocs", "numOwnedDocuments", "ownedSizeBytes",
            "orphanedSizeBytes",
        ]  # fmt: skip
        assert entry["numOwnedDocuments"] == count
        assert entry["ownedSizeBytes"] == (size // count) * count
        assert entry["numOrphanedDocs"] == entry["orphanedSizeBytes"] == 0
    # later stages run over its output, as mongosh's getShardedDataDistribution() may add
    only = list(
        h.client.admin.aggregate(
            [{"$shardedDataDistribution": {}}, {"$match": {"ns": "app.users"}}]
        )
    )
    assert [d["ns"] for d in only] == ["app.users"]


def test_sharded_data_distribution_follows_a_move(sandbox_server: Any):
    h = _demo(sandbox_server)
    before = _owned(h, "app.sessions")
    h.client.admin.command("moveChunk", "app.sessions", find={"userId": 0}, to="shard-std-3")
    after = _owned(h, "app.sessions")
    assert sum(after.values()) == sum(before.values())
    assert after["shard-std-3"] > before["shard-std-3"]


def _owned(h: Any, ns: str) -> dict[str, int]:
    (doc,) = h.client.admin.aggregate([{"$shardedDataDistribution": {}}, {"$match": {"ns": ns}}])
    return {s["shardName"]: s["numOwnedDocuments"] for s in doc["shards"]}


def test_sharded_data_distribution_errors(sandbox_server: Any):
    h = _demo(sandbox_server)
    with pytest.raises(OperationFailure) as err:
        list(h.client.admin.aggregate([{"$shardedDataDistribution": {"x": 1}}]))
    assert err.value.code == 6789100
    with pytest.raises(OperationFailure) as err:
        list(h.client.app.aggregate([{"$shardedDataDistribution": {}}]))
    assert err.value.code == 6789102
    assert "must be run on the admin database" in str(err.value)
    with pytest.raises(OperationFailure) as err:
        list(h.client.admin.some.aggregate([{"$shardedDataDistribution": {}}]))
    assert err.value.code == 6789102


def test_sharded_data_distribution_does_not_exist_on_5_0(sandbox_server: Any):
    h = _demo(sandbox_server, "5.0")
    with pytest.raises(OperationFailure) as err:
        list(h.client.admin.aggregate([{"$shardedDataDistribution": {}}]))
    assert err.value.code == 40324
    assert "Unrecognized pipeline stage name: '$shardedDataDistribution'" in str(err.value)


def test_uptime_reporter_ints_are_longs(sandbox_server: Any):
    h = _demo(sandbox_server)
    doc = h.sandbox.catalog.get("config.mongos").get(f"{h.server._uptime.instance_id}")
    assert isinstance(doc["up"], Int64)


def test_sharded_data_distribution_needs_its_cluster_action(sandbox_server: Any):
    """clusterMonitor carries the shardedDataDistribution action (SERVER-95999);
    clusterManager and read on config do not, so mongosh shows it as undefined for them."""
    users = AuthConfig(
        users=[
            User(name="monitor", db="admin", password="pw", roles=("clusterMonitor",)),
            User(name="manager", db="admin", password="pw", roles=("clusterManager",)),
            User(name="reader", db="admin", password="pw", roles=(("read", "config"),)),
        ]
    )
    sb = Sandbox("7.0", auth=users)
    seed.seed(sb, seed.load(None))
    h = sandbox_server(sandbox=sb)
    stage = [{"$shardedDataDistribution": {}}]
    monitor = h.new_client(username="monitor", password="pw")
    # The demo's five collections and config.system.sessions, which a real mongos lists too
    # (the manual's sh.getShardedDataDistribution() example starts with it).
    listed = [d["ns"] for d in monitor.admin.aggregate(stage)]
    assert sorted(listed) == [
        "app.audit", "app.events", "app.reports", "app.sessions", "app.users",
        "config.system.sessions",
    ]  # fmt: skip
    for name in ("manager", "reader"):
        client = h.new_client(username=name, password="pw")
        with pytest.raises(OperationFailure) as err:
            list(client.admin.aggregate(stage))
        assert err.value.code == 13
        # an ordinary aggregate still follows `find` on the namespace
        assert list(client.config.shards.aggregate([{"$count": "n"}])) == [{"n": 6}]
