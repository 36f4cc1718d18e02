"""dbStats through a mongos: every shard's reply under `raw` (keyed by its connection string),
then the totals, as mongo:src/mongo/s/commands/cluster_db_stats_cmd.cpp builds them:

    {raw: {<host>: <shard reply>}, db, collections, views, objects, avgObjSize, dataSize,
     storageSize, totalSize, indexes, indexSize, scaleFactor, fsUsedSize, fsTotalSize, ok}

`scale` must be above 0 (BadValue "Scale must be greater than zero"); it is passed to every
shard, and the totals are sums of the shards' scaled figures. Each shard answers as
mongod's CmdDbStats does (mongo:src/mongo/db/commands/dbcommands.cpp, reply struct `DBStats`
in mongo:src/mongo/db/dbcommands.idl, serialized in IDL field order):

    {db, collections, views, objects, avgObjSize, dataSize, storageSize, indexes, indexSize,
     totalSize, [freeStorageSize, indexFreeStorageSize, totalFreeStorageSize],
     scaleFactor, fsUsedSize, fsTotalSize, ok}

counts as int64, sizes as doubles divided by the scale, avgObjSize unscaled; the free-storage
fields only with `freeStorage: 1`. A shard that holds nothing of the database answers zeros,
filesystem figures included (dbcommands.cpp: "ensure that these fields match exactly"). The
mongos's totals are appended with `appendNumber`: a count as int32 when it fits, sizes as
doubles. Privilege: the dbStats action on the database (authz.py)."""

from __future__ import annotations

from typing import Any

from bson import Int64

from zonectl.sandbox.catalog import unsharded, volume_stats
from zonectl.sandbox.catalog.cluster import Cluster
from zonectl.sandbox.catalog.volume_totals import Sums
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError

_INT32 = 2**31


@command("dbStats", aliases=("dbstats",), supports_write_concern=False)
def db_stats(request: Request) -> dict[str, Any]:
    scale = _scale(request.body.get("scale", 1))
    free = bool(request.body.get("freeStorage"))
    cluster = request.sandbox.cluster
    db = request.db
    # The volumes' running totals: the sums of volume_stats.files() without the walk.
    volume_stats.refresh(cluster)
    totals = cluster.volumes.totals
    raw: dict[str, Any] = {}
    replies = []
    for shard in cluster.shard_names():
        doc = cluster.shard_doc(shard) or {}
        disk = cluster.volumes.disk(shard)
        fs = (disk.baseline + totals.used(shard), disk.size)
        reply = _shard_reply(cluster, db, shard, totals.sums(shard, db), fs, scale, free)
        raw[str(doc.get("host", shard))] = reply
        replies.append(reply)
    return {"raw": raw, "db": db, **_totals(replies, scale)}


def _scale(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CommandError.of(
            "TypeMismatch",
            f"BSON field 'dbStats.scale' is the wrong type '{_type(value)}', expected types "
            "'[long, int, decimal, double]'",
        )
    if value <= 0:
        raise CommandError.of("BadValue", "Scale must be greater than zero")
    return int(value)


def _shard_reply(
    cluster: Cluster,
    db: str,
    shard: str,
    found: Sums,
    fs: tuple[int, int],
    scale: int,
    free: bool,
) -> dict[str, Any]:
    primary = (cluster.database_doc(db) or {}).get("primary")
    exists = db in ("admin", "config") or shard == primary or bool(found.collections)
    views = _views(cluster, db) if shard == primary else 0
    objects, size, storage, index = found.objects, found.size, found.storage, found.index_size
    reply: dict[str, Any] = {
        "db": db,
        "collections": Int64(found.collections),
        "views": Int64(views),
        "objects": Int64(objects),
        "avgObjSize": size / objects if objects else 0.0,
        "dataSize": size / scale,
        "storageSize": storage / scale,
        "indexes": Int64(found.indexes),
        "indexSize": index / scale,
        "totalSize": (storage + index) / scale,
    }
    if free:
        data_free, index_free = found.free, found.index_free
        reply["freeStorageSize"] = data_free / scale
        reply["indexFreeStorageSize"] = index_free / scale
        reply["totalFreeStorageSize"] = (data_free + index_free) / scale
    reply["scaleFactor"] = Int64(scale)
    used, total = fs if exists else (0, 0)
    if exists and cluster.volumes.disk(shard).unreadable:
        # statfs failed: -1 for both, unscaled (database_impl.cpp, getStats)
        reply["fsUsedSize"] = reply["fsTotalSize"] = -1.0
    else:
        reply["fsUsedSize"] = used / scale
        reply["fsTotalSize"] = total / scale
    reply["ok"] = 1.0
    return reply


def _views(cluster: Cluster, db: str) -> int:
    """Views and time-series collections (a view over their buckets) of the database."""
    return sum(
        1
        for ns in cluster.catalog.namespaces()
        if ns.split(".", 1)[0] == db and unsharded.kind_of(cluster, ns) in ("view", "timeseries")
    )


def _totals(replies: list[dict[str, Any]], scale: int) -> dict[str, Any]:
    objects = sum(int(r["objects"]) for r in replies)
    unscaled = sum(float(r["avgObjSize"]) * int(r["objects"]) for r in replies)

    def add(field: str) -> float:
        return float(sum(float(r[field]) for r in replies))

    return {
        "collections": _number(sum(int(r["collections"]) for r in replies)),
        "views": _number(sum(int(r["views"]) for r in replies)),
        "objects": _number(objects),
        "avgObjSize": unscaled / objects if objects else 0.0,
        "dataSize": add("dataSize"),
        "storageSize": add("storageSize"),
        "totalSize": add("totalSize"),
        "indexes": _number(sum(int(r["indexes"]) for r in replies)),
        "indexSize": add("indexSize"),
        "scaleFactor": _number(scale),
        "fsUsedSize": add("fsUsedSize"),
        "fsTotalSize": add("fsTotalSize"),
    }


def _number(value: int) -> int | Int64:
    """BSONObjBuilder::appendNumber(long long): an int32 when it fits, else an int64."""
    return value if -_INT32 <= value < _INT32 else Int64(value)


def _type(value: Any) -> str:
    names = {str: "string", bool: "bool", dict: "object", list: "array", type(None): "null"}
    return names.get(type(value), type(value).__name__)
