"""analyze's per-collection reads for every collection at once: the recent chunk changes in
config.changelog (one aggregation grouped by namespace and kind), every collection's chunks
(one cursor, chunk_scan_many) and analyzeShardKey (one command per key with no bulk form,
so sent from a few threads: a distant mongos's latency is paid about once)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from zonectl.analyze.inputs import ChunkInfo
from zonectl.model.cluster import ClusterState
from zonectl.mongo.chunk_scan_many import stream_by_collection
from zonectl.mongo.connect import Connection
from zonectl.mongo.shard_key_read import run_analyze_shard_key
from zonectl.mongo.state import WHOLE

CHANGES = ("moveChunk.commit", "split", "multi-split", "merge", "moveRange.commit")
CHUNK_FIELDS = {"_id": 0, "min": 1, "max": 1, "shard": 1, "jumbo": 1, "estimatedDataSizeBytes": 1}
THREADS = 8

Reply = tuple[Mapping[str, Any] | None, str | None]


def read_changes(
    conn: Connection, namespaces: Sequence[str], since: dt.datetime
) -> dict[str, dict[str, int]]:
    """ns -> {what: n} of the chunk changes logged since `since` (PyMongoError raised)."""
    if not namespaces:
        return {}
    match = {"ns": {"$in": sorted(namespaces)}, "what": {"$in": list(CHANGES)}}
    pipeline: list[dict[str, Any]] = [
        {"$match": {**match, "time": {"$gte": since}}},
        {"$group": {"_id": {"ns": "$ns", "what": "$what"}, "n": {"$sum": 1}}},
    ]
    out: dict[str, dict[str, int]] = {}
    for doc in conn.client.config.changelog.aggregate(pipeline, batchSize=WHOLE):
        key = doc["_id"]
        out.setdefault(str(key["ns"]), {})[str(key["what"])] = int(doc["n"])
    return {ns: {w: out[ns][w] for w in CHANGES if w in out[ns]} for ns in out}


def read_chunk_infos(
    conn: Connection, state: ClusterState, namespaces: Sequence[str]
) -> dict[str, tuple[ChunkInfo, ...]]:
    """ns -> its chunks in min order, for the sharded `namespaces` whose chunks carry their
    collection's uuid (5.0+); the others are left to the caller."""
    entries = [
        {"_id": ns, "uuid": live.uuid, "key": dict(live.key)}
        for ns in namespaces
        if (live := state.collections.get(ns)) is not None and live.uuid is not None
    ]
    out: dict[str, tuple[ChunkInfo, ...]] = {str(e["_id"]): () for e in entries}
    for coll, chunks in stream_by_collection(conn, entries, CHUNK_FIELDS):
        out[str(coll["_id"])] = tuple(
            ChunkInfo(
                min=dict(d["min"]),
                max=dict(d["max"]),
                shard=str(d["shard"]),
                jumbo=bool(d.get("jumbo", False)),
                bytes=d.get("estimatedDataSizeBytes"),
            )
            for d in chunks
        )
    return out


def read_key_replies(
    conn: Connection, keys: Mapping[str, Mapping[str, Any]], *, distribution: bool
) -> dict[str, Reply]:
    """ns -> analyzeShardKey's (reply, why not) for its key in `keys`, sent concurrently."""
    if not keys:
        return {}
    names = list(keys)
    with ThreadPoolExecutor(min(THREADS, len(names))) as pool:
        replies = pool.map(
            lambda ns: run_analyze_shard_key(conn, ns, keys[ns], distribution=distribution),
            names,
        )
        return dict(zip(names, replies, strict=True))
