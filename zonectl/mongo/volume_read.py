"""Every shard's volume in one round trip: `dbStats` with `freeStorage: 1` on one database,
sent through mongos, answers per shard under `raw`, keyed by the shard's connection string
(mongo:src/mongo/s/commands/cluster_db_stats_cmd.cpp, appendRawResponses), with
`fsUsedSize`/`fsTotalSize` of the volume holding the dbpath (3.6+) beside the database's
`dataSize`, `storageSize`, `indexSize` and `freeStorageSize` (capacity.md; manual,
dbStats). The keys are mapped to shard ids through config.shards' hosts, already read.

A shard that holds nothing of the database answers zeros, filesystem sizes included
(mongo:src/mongo/db/commands/dbcommands.cpp, CmdDbStats); for those shards the volume comes
from a second dbStats on `admin`, which every shard has (admin.system.version holds its
featureCompatibilityVersion): two round trips at most, whatever the plan."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.capacity import ShardVolume
from zonectl.model.cluster import ClusterState, LiveShard
from zonectl.mongo.connect import Connection

UNAUTHORIZED = 13


def _set_name(host: str) -> str:
    """ "rs0/a:1,b:2" -> "rs0"; a host without a set name is its own name."""
    return host.split("/", 1)[0] if "/" in host else host


def shard_of(key: str, shards: tuple[LiveShard, ...]) -> str | None:
    """The shard whose connection string `key` is: the string config.shards stores, else
    the same replica set (the mongos's view of the set's members may have moved on)."""
    exact = next((s.id for s in shards if s.host == key), None)
    if exact is not None:
        return exact
    name = _set_name(key)
    return next((s.id for s in shards if s.host and _set_name(s.host) == name), None)


def _size(doc: Mapping[str, Any], name: str) -> int | None:
    value = doc.get(name)
    return int(value) if isinstance(value, int | float) else None


def volumes_of(raw: Mapping[str, Any], shards: tuple[LiveShard, ...]) -> dict[str, ShardVolume]:
    """ShardVolume per shard id from dbStats' `raw`; a shard absent from it, or without
    `fsUsedSize`/`fsTotalSize`, gets a volume without sizes (never a silent pass)."""
    out: dict[str, ShardVolume] = {}
    for key, doc in raw.items():
        shard = shard_of(str(key), shards)
        if shard is None or not isinstance(doc, Mapping):
            continue
        out[shard] = ShardVolume(
            shard,
            _size(doc, "fsUsedSize"),
            _size(doc, "fsTotalSize"),
            _size(doc, "storageSize") or 0,
            _size(doc, "indexSize") or 0,
            _size(doc, "freeStorageSize") or 0,
            _size(doc, "dataSize") or 0,
        )
    for s in shards:
        out.setdefault(s.id, ShardVolume(s.id, None, None))
    return out


def read_volumes(
    conn: Connection, actual: ClusterState, database: str
) -> tuple[dict[str, ShardVolume] | None, str]:
    """(volumes by shard id, "") or (None, why) when the server refuses dbStats: the plan is
    then made without the disk guard, and says so."""
    volumes, why = _read(conn, actual, database, free=True)
    missing = [s for s, v in (volumes or {}).items() if not v.known]
    if volumes is None or not missing or database == "admin":
        return volumes, why
    fallback, _ = _read(conn, actual, "admin", free=False)
    for shard in missing:
        found = (fallback or {}).get(shard)
        if found is not None and found.known:
            volumes[shard] = dataclasses.replace(
                volumes[shard], used_bytes=found.used_bytes, total_bytes=found.total_bytes
            )
    return volumes, why


def _read(
    conn: Connection, actual: ClusterState, database: str, *, free: bool
) -> tuple[dict[str, ShardVolume] | None, str]:
    command: dict[str, Any] = {"dbStats": 1, **({"freeStorage": 1} if free else {})}
    try:
        reply = conn.client[database].command(command)
    except OperationFailure as exc:
        if exc.code == UNAUTHORIZED:
            return None, (
                "is not allowed for this user (Unauthorized; the dbStats action, e.g. the "
                "clusterMonitor role)"
            )
        name = (exc.details or {}).get("codeName") or exc.code
        return None, f"failed ({name}: {redact(str((exc.details or {}).get('errmsg', exc)))})"
    except PyMongoError as exc:
        why = redact(str(exc))
        raise ClusterError(f"{conn.uri}: dbStats on {database} failed: {why}") from None
    raw = reply.get("raw")
    if not isinstance(raw, Mapping):  # a mongos always answers `raw`; say so otherwise
        return None, "answered without per-shard sizes (no `raw`)"
    return volumes_of(raw, actual.shards), ""
