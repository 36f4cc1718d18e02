"""Read each shard's volume for a twin: `dbStats` (with `freeStorage: 1`) through the mongos on
every captured database, whose `raw` answers per shard connection string with `fsUsedSize` and
`fsTotalSize` of the volume holding its dbpath (mongo:src/mongo/s/commands/
cluster_db_stats_cmd.cpp), and the data's compression and index size per document.

A shard that holds nothing of a database answers zeros, filesystem sizes included (mongod's
CmdDbStats): `admin`, which every shard holds, is asked too, and a volume is the largest
figure any reply gave. A user without the dbStats action
(clusterMonitor grants it) gets a twin without volumes, and the note says so."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.mongo.connect import Connection


@dataclass
class Volumes:
    shards: dict[str, tuple[int, int]] = field(default_factory=dict)  # (fsUsed, fsTotal)
    storage: dict[str, tuple[float, float]] = field(default_factory=dict)  # db -> figures
    notes: list[str] = field(default_factory=list)


def read_volumes(conn: Connection, databases: Iterable[str], hosts: Mapping[str, str]) -> Volumes:
    """`hosts`: shard connection string -> shard id (config.shards' host and _id)."""
    out = Volumes()
    names = [*databases, "admin"]
    used: dict[str, tuple[int, int]] = {}
    for db in names:
        try:
            reply = conn.client[db].command({"dbStats": 1, "freeStorage": 1})
        except OperationFailure as exc:
            if exc.code == 13:
                out.notes.append(
                    "not captured: the shards' volumes: dbStats needs the dbStats action "
                    "(clusterMonitor grants it); the twin's shards get the sandbox's default disk"
                )
                return out
            raise ClusterError(f"{conn.uri}: dbStats on {db} failed: {redact(str(exc))}") from None
        except PyMongoError as exc:
            raise ClusterError(f"{conn.uri}: dbStats on {db} failed: {redact(str(exc))}") from None
        raw = reply.get("raw")
        for host, stats in raw.items() if isinstance(raw, Mapping) else ():
            shard = hosts.get(str(host))
            if shard is None or not isinstance(stats, Mapping):
                continue
            have = used.get(shard, (0, 0))
            used[shard] = (
                max(have[0], int(stats.get("fsUsedSize") or 0)),
                max(have[1], int(stats.get("fsTotalSize") or 0)),
            )
        if db != "admin":
            figures = _storage(raw.values() if isinstance(raw, Mapping) else ())
            if figures is not None:
                out.storage[db] = figures
    out.shards = {s: fs for s, fs in used.items() if fs[1] > 0}
    missing = len(set(hosts.values()) - set(out.shards))
    if missing:  # counted, not named: the note must not undo an anonymized twin
        out.notes.append(
            f"not captured: the volumes of {missing} shard(s) that reported no filesystem "
            "sizes; the twin gives them the sandbox's default disk"
        )
    return out


def _storage(replies: Iterable[Any]) -> tuple[float, float] | None:
    """(stored bytes / data bytes, index bytes per document) over the shards' replies: what
    the data and its indexes take now (the files' sizes less their free space)."""
    data = stored = index = docs = 0.0
    for r in replies:
        if not isinstance(r, Mapping):
            continue
        data += float(r.get("dataSize") or 0)
        stored += float(r.get("storageSize") or 0) - float(r.get("freeStorageSize") or 0)
        index += float(r.get("indexSize") or 0) - float(r.get("indexFreeStorageSize") or 0)
        docs += float(r.get("objects") or 0)
    if data <= 0 or stored <= 0:
        return None
    return min(stored / data, 2.0), (index / docs if docs else 0.0)
