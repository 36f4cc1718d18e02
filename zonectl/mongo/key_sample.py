"""One live shard-key value per namespace, for rotate's key-type check: the min of the
highest chunk, one indexed read of config.chunks (by `uuid` on 5.0+, `ns` on 4.4, §2.3);
for many namespaces, all in one aggregate (ChunkBatch)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import ClusterState
from zonectl.mongo.chunk_batch import ChunkBatch
from zonectl.mongo.connect import Connection


def read_top_key_value(conn: Connection, actual: ClusterState, ns: str, field: str) -> Any:
    """The value of `field` in the min bound of the namespace's highest chunk: the newest
    data of an ascending key, so the type its writers use today. None when unsharded."""
    coll = actual.collections.get(ns)
    if coll is None:
        return None
    major = int(actual.version.split(".")[0]) if actual.version[:1].isdigit() else 7
    where: dict[str, Any] = (
        {"uuid": coll.uuid} if major >= 5 and coll.uuid is not None else {"ns": ns}
    )
    try:
        docs = list(
            conn.client.config.chunks.find(where, {"_id": 0, "min": 1}).sort("min", -1).limit(1)
        )
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading chunks of {ns} failed: {redact(str(exc))}"
        ) from None
    return docs[0]["min"].get(field) if docs else None


def read_top_key_values(
    conn: Connection, actual: ClusterState, fields: Mapping[str, str]
) -> dict[str, Any]:
    """ns -> read_top_key_value for each `fields` entry (ns -> field), in one aggregate."""
    batch = ChunkBatch(conn)

    def read() -> dict[str, Any]:
        found: dict[str, Any] = {}
        for ns, field in fields.items():
            where = _where(actual, ns)
            if where is None:
                found[ns] = None
                continue
            docs = batch.find(where, {"min": 1}, sort={"min": -1}, limit=1)
            found[ns] = docs[0]["min"].get(field) if docs else None
        return found

    return batch.replay(read)


def _where(actual: ClusterState, ns: str) -> dict[str, Any] | None:
    coll = actual.collections.get(ns)
    if coll is None:
        return None
    major = int(actual.version.split(".")[0]) if actual.version[:1].isdigit() else 7
    return {"uuid": coll.uuid} if major >= 5 and coll.uuid is not None else {"ns": ns}
