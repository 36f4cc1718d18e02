"""dbStats answers from the volumes' running totals (catalog/volume_totals.py), not by walking
every collection's files: after inserts, deletes, migrations, a new sharded collection, a
refined key and drops, each shard's reply over TCP equals what the walk over every file
(volume_stats.files, the definition) gives at that moment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymongo
from volumes_util import HOST_A, HOST_B, NOW, cluster_file, move

from zonectl.sandbox import uri as sandbox_uri
from zonectl.sandbox.catalog import volume_stats
from zonectl.sandbox.catalog.cluster import Cluster

HOSTS = {"a": HOST_A, "b": HOST_B}
FIGURES = [
    "collections", "objects", "dataSize", "storageSize", "indexes", "indexSize", "totalSize",
    "freeStorageSize", "indexFreeStorageSize", "fsUsedSize", "fsTotalSize",
]  # fmt: skip


def walked(cluster: Cluster, db: str) -> dict[str, dict[str, float]]:
    """host -> the figures dbStats gives, summed from the walk over every file."""
    every = volume_stats.files(cluster)
    fs = volume_stats.fs_used(cluster, every)
    primary = (cluster.database_doc(db) or {}).get("primary")
    out = {}
    for shard, host in HOSTS.items():
        mine = [f for s, f in every if s == shard and f.ns.split(".", 1)[0] == db]
        held = db in ("admin", "config") or bool(mine) or shard == primary
        storage, index = sum(f.storage_size for f in mine), sum(f.index_size for f in mine)
        out[host] = {
            "collections": len(mine),
            "objects": sum(f.count for f in mine),
            "dataSize": sum(f.size for f in mine),
            "storageSize": storage,
            "indexes": sum(f.nindexes for f in mine),
            "indexSize": index,
            "totalSize": storage + index,
            "freeStorageSize": sum(f.free_storage_size for f in mine),
            "indexFreeStorageSize": sum(f.index_free_size for f in mine),
            # a shard holding nothing of the database answers zeros (test_db_stats.py)
            "fsUsedSize": fs[shard][0] if held else 0,
            "fsTotalSize": fs[shard][1] if held else 0,
        }
    return out


def answered(client: pymongo.MongoClient[dict[str, Any]], db: str) -> dict[str, dict[str, float]]:
    raw = client[db].command("dbStats", freeStorage=1)["raw"]
    return {host: {f: raw[host][f] for f in FIGURES} for host in HOSTS.values()}


def test_db_stats_after_writes_moves_and_drops_equals_the_walk(tmp_path: Path) -> None:
    with sandbox_uri.start(f"sandbox:{cluster_file(tmp_path)}?now={NOW}") as sb:
        client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(sb.uri)
        client.admin.command("balancerStop")
        cluster = sb.sandbox.cluster
        seen = []

        def check(label: str, *dbs: str) -> None:
            for db in dbs or ("app",):
                got = answered(client, db)
                assert got == walked(cluster, db), label
                seen.append(got)

        check("seeded", "app", "admin")
        client.app.events.insert_many([{"k": i * 10} for i in range(50)])
        client.app.notes.insert_many([{"n": i} for i in range(30)])  # unsharded, on a
        check("inserts")
        move(client, 0, "b")
        move(client, 1000, "b")
        check("moves")
        move(client, 0, "a")
        client.app.events.delete_many({"k": {"$lt": 200}})
        client.app.notes.delete_many({"n": {"$lt": 10}})
        check("deletes and a move back")
        client.admin.command("shardCollection", "app.logs", key={"x": 1})
        client.app.logs.insert_many([{"x": i} for i in range(20)])
        client.admin.command("shardCollection", "app.ids", key={"_id": 1})
        client.app.ids.insert_one({"_id": 1})
        client.other.things.insert_one({"_id": 1})
        check("new collections", "app", "other")
        client.app.events.create_index([("k", 1), ("j", 1)])
        client.admin.command("refineCollectionShardKey", "app.events", key={"k": 1, "j": 1})
        check("refined key")
        client.app.notes.drop()
        client.app.logs.drop()
        check("drops", "app", "other", "admin")
        client.drop_database("other")
        check("dropped database", "app", "other")
    # The steps changed what dbStats answers (the comparison is not of unchanged figures).
    assert len({repr(s) for s in seen}) >= 8
