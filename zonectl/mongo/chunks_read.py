"""Reads for apply's checks and eager migration: a namespace's zone ranges as config.tags
stores them, its chunks in key order (by `uuid` on 5.0+, `ns` on 4.4, reference §2.3), its
max chunk size and the bytes each shard owns of it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import LiveRange
from zonectl.mongo.connect import Client

DEFAULT_CHUNK_MB = {4: 64, 5: 64}  # 128 MB from 6.0 (§2.5)
# One dataSize per chunk that must move; past this many, per-shard averages are used.
MAX_SIZE_QUERIES = 5000


class MongoChunks:
    def __init__(self, client: Client, version: str) -> None:
        self.client = client
        self.major = int(version.split(".")[0]) if version[:1].isdigit() else 7

    def read_ranges(self, ns: str) -> list[LiveRange]:
        docs = self._read(lambda: list(self.client.config.tags.find({"ns": ns})))
        return [LiveRange(ns, str(d["tag"]), dict(d["min"]), dict(d["max"])) for d in docs]

    def read_chunks(self, ns: str) -> list[dict[str, Any]]:
        """min, max, shard, jumbo of every chunk of `ns`, sorted by min (the unique
        {uuid|ns: 1, min: 1} index serves the sort)."""
        coll = self._read(lambda: self.client.config.collections.find_one({"_id": ns}))
        if coll is None:
            return []
        where = {"uuid": coll["uuid"]} if self.major >= 5 and "uuid" in coll else {"ns": ns}
        fields = {"_id": 0, "min": 1, "max": 1, "shard": 1, "jumbo": 1, "estimatedDataSizeBytes": 1}
        docs: list[dict[str, Any]] = self._read(
            lambda: [dict(d) for d in self.client.config.chunks.find(where, fields).sort("min", 1)]
        )
        return docs

    def max_chunk_bytes(self, ns: str) -> int:
        coll = self._read(lambda: self.client.config.collections.find_one({"_id": ns})) or {}
        if coll.get("maxChunkSizeBytes"):
            return int(coll["maxChunkSizeBytes"])
        setting = self._read(lambda: self.client.config.settings.find_one({"_id": "chunksize"}))
        mb = int(setting["value"]) if setting and setting.get("value") else None
        return (mb or DEFAULT_CHUNK_MB.get(self.major, 128)) * 1024 * 1024

    def read_shard_bytes(self, ns: str) -> dict[str, int] | None:
        """Bytes each shard owns of `ns` from `$shardedDataDistribution` (6.0.3+); None
        where the server has no such stage or cannot say."""
        try:
            docs = list(
                self.client.admin.aggregate(
                    [{"$shardedDataDistribution": {}}, {"$match": {"ns": ns}}]
                )
            )
        except PyMongoError:
            return None
        if not docs:
            return None
        return {
            str(s["shardName"]): int(s.get("ownedSizeBytes") or 0)
            for s in docs[0].get("shards", [])
        }

    def read_range_bytes(
        self, ns: str, ranges: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]
    ) -> list[int] | None:
        """Bytes of each shard-key range (a chunk's [min, max)), by `dataSize` with
        `estimate: true` through the mongos (cluster_data_size_cmd.cpp sums the shards);
        None when the server refuses it (privileges) or there are too many to ask."""
        if not ranges or len(ranges) > MAX_SIZE_QUERIES:
            return None
        coll = self._read(lambda: self.client.config.collections.find_one({"_id": ns}))
        if coll is None or "key" not in coll:
            return None
        out = []
        try:
            for lo, hi in ranges:
                reply = self.client.admin.command(
                    {
                        "dataSize": ns,
                        "keyPattern": coll["key"],
                        "min": dict(lo),
                        "max": dict(hi),
                        "estimate": True,
                    }
                )
                out.append(int(reply.get("size") or 0))
        except PyMongoError:
            return None
        return out

    def _read(self, fn: Any) -> Any:
        try:
            return fn()
        except PyMongoError as exc:
            raise ClusterError(f"reading config metadata failed: {redact(str(exc))}") from None
