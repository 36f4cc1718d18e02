"""dbStats through the sandbox's mongos, over TCP with pymongo: every shard's reply under `raw`
keyed by its connection string, in the field order and types of MongoDB 6.0+ (mongod's DBStats
reply, dbcommands.idl; the mongos's totals, cluster_db_stats_cmd.cpp), `scale` honoured, and
the volumes the cluster file gives."""

from __future__ import annotations

from pathlib import Path

import pymongo
import pytest
from pymongo.errors import OperationFailure
from volumes_util import (
    BASELINE_A,
    CHUNK,
    DOCS,
    GIB,
    HOST_A,
    HOST_B,
    NOW,
    ON_A,
    STORED,
    cluster_file,
)

from zonectl.sandbox import uri as sandbox_uri
from zonectl.sandbox.seed.schema import SeedError

SHARD_FIELDS = [
    "db", "collections", "views", "objects", "avgObjSize", "dataSize", "storageSize",
    "indexes", "indexSize", "totalSize", "scaleFactor", "fsUsedSize", "fsTotalSize", "ok",
]  # fmt: skip
MONGOS_FIELDS = [
    "raw", "db", "collections", "views", "objects", "avgObjSize", "dataSize", "storageSize",
    "totalSize", "indexes", "indexSize", "scaleFactor", "fsUsedSize", "fsTotalSize", "ok",
]  # fmt: skip


def test_a_20_gib_shard_with_14_gib_used_reports_both_under_raw(tmp_path: Path) -> None:
    with sandbox_uri.start(f"sandbox:{cluster_file(tmp_path)}?now={NOW}") as sb:
        client: pymongo.MongoClient[dict] = pymongo.MongoClient(sb.uri)
        reply = client.app.command("dbStats")
    assert [f for f in reply if not f.startswith(("$", "operationTime"))] == MONGOS_FIELDS
    a, b = reply["raw"][HOST_A], reply["raw"][HOST_B]
    assert list(a) == SHARD_FIELDS
    assert (a["fsUsedSize"], a["fsTotalSize"]) == (14 * GIB, 20 * GIB)
    assert isinstance(a["fsUsedSize"], float) and isinstance(a["objects"], int)
    assert (a["collections"], a["objects"], a["indexes"]) == (1, ON_A * DOCS, 2)
    assert a["storageSize"] + a["indexSize"] == a["totalSize"] == ON_A * STORED
    assert a["fsUsedSize"] - BASELINE_A == a["totalSize"]
    # A shard without `disk:` sits on the default volume: 1 TiB with 2 GiB of other files.
    assert (b["fsUsedSize"], b["fsTotalSize"]) == (2 * GIB + 4 * STORED, 1024 * GIB)
    assert reply["fsUsedSize"] == a["fsUsedSize"] + b["fsUsedSize"]
    assert reply["objects"] == (ON_A + 4) * DOCS and reply["scaleFactor"] == 1
    assert reply["avgObjSize"] == 1024.0 and reply["db"] == "app"


def test_scale_divides_every_size_and_must_be_above_zero(tmp_path: Path) -> None:
    with sandbox_uri.start(f"sandbox:{cluster_file(tmp_path)}?now={NOW}") as sb:
        client: pymongo.MongoClient[dict] = pymongo.MongoClient(sb.uri)
        reply = client.app.command("dbStats", scale=GIB, freeStorage=1)
        with pytest.raises(OperationFailure) as refused:
            client.app.command("dbStats", scale=0)
    a = reply["raw"][HOST_A]
    assert (a["fsUsedSize"], a["fsTotalSize"], a["scaleFactor"]) == (14.0, 20.0, GIB)
    assert a["totalSize"] == ON_A * STORED / GIB and a["avgObjSize"] == 1024.0
    assert (a["freeStorageSize"], a["indexFreeStorageSize"], a["totalFreeStorageSize"]) == (0, 0, 0)
    assert list(a)[9:14] == ["totalSize", "freeStorageSize", "indexFreeStorageSize",
                             "totalFreeStorageSize", "scaleFactor"]  # fmt: skip
    assert reply["scaleFactor"] == GIB and reply["fsTotalSize"] == 20.0 + 1024.0
    assert refused.value.code == 2 and "Scale must be greater than zero" in str(refused.value)


def test_a_shard_holding_nothing_of_the_database_answers_zeros(tmp_path: Path) -> None:
    """mongod's dbStats of a database it does not hold answers zeros, filesystem sizes
    included: a reader of volumes asks a database every shard holds (admin)."""
    with sandbox_uri.start(f"sandbox:{cluster_file(tmp_path)}?now={NOW}") as sb:
        client: pymongo.MongoClient[dict] = pymongo.MongoClient(sb.uri)
        client.other.things.insert_one({"_id": 1})  # its primary is b: nothing on a
        other = client.other.command("dbStats")["raw"]
        admin = client.admin.command("dbStats")["raw"]
    assert (other[HOST_A]["fsUsedSize"], other[HOST_A]["fsTotalSize"]) == (0, 0)
    assert other[HOST_A]["collections"] == 0 and other[HOST_B]["collections"] == 1
    assert (admin[HOST_A]["fsUsedSize"], admin[HOST_A]["fsTotalSize"]) == (14 * GIB, 20 * GIB)


def test_a_disk_whose_baseline_exceeds_it_is_refused_at_its_line(tmp_path: Path) -> None:
    text = cluster_file(tmp_path).read_text().replace("size: 20GiB", "size: 10GiB")
    path = cluster_file(tmp_path, text=text)
    with pytest.raises(SeedError) as bad, sandbox_uri.start(f"sandbox:{path}"):
        pass
    assert f"{path}:3:" in str(bad.value) and "baseline is larger than the volume" in str(bad.value)
    path.write_text(text.replace("size: 10GiB", "size: twenty"))
    with pytest.raises(SeedError) as bad, sandbox_uri.start(f"sandbox:{path}"):
        pass
    assert "shards[0].disk.size" in str(bad.value) and "'twenty' is not a size" in str(bad.value)


def test_a_collection_stores_at_the_compression_its_cluster_file_gives(tmp_path: Path) -> None:
    text = (
        cluster_file(tmp_path)
        .read_text()
        .replace(
            "    chunkSize:", "    compression: 0.25\n    indexBytesPerDocument: 0\n    chunkSize:"
        )
    )
    extra = "unsharded:\n  - {ns: app.notes, bytes: 4096000, docs: 4000, compression: 1}\n"
    with sandbox_uri.start(f"sandbox:{cluster_file(tmp_path, extra, text)}?now={NOW}") as sb:
        client: pymongo.MongoClient[dict] = pymongo.MongoClient(sb.uri)
        a = client.app.command("dbStats")["raw"][HOST_A]
        notes = client.app.command("collStats", "notes")
    # a is app's primary: the unsharded collection lives there, uncompressed, 64 B/doc index.
    assert a["collections"] == 2 and a["objects"] == ON_A * DOCS + 4000
    assert a["storageSize"] == ON_A * CHUNK // 4 + 4096000
    assert a["indexSize"] == 4000 * 64
    assert (notes["storageSize"], notes["totalIndexSize"], notes["size"]) == (
        4096000,
        256000,
        4096000,
    )
    assert notes["shards"]["a"]["freeStorageSize"] == 0
