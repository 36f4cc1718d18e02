"""One size for a chunk everywhere (the plan's impact line, the forecast, status and the
metrics): measured by `dataSize` where that is affordable, else estimated from collection
statistics (a shard's bytes of the collection over its chunk count), else half the maximum
chunk size. Reads are indexed counts and per-shard statistics, never every chunk."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.keys import sort_key
from zonectl.mongo.connect import Connection

DEFAULT_CHUNK_MB = {4: 64, 5: 64}  # 128 MB from 6.0 (reference §2.5)
# dataSize is one command per chunk (the router asks every shard owning the range,
# cluster_data_size_cmd.cpp): past this many per run, the estimate is used instead.
MAX_MEASURED = 2000

Bounds = tuple[Mapping[str, Any], Mapping[str, Any]]


def per_chunk(shard_bytes: int, chunks: int) -> int:
    """The estimate of one chunk's bytes on a shard: its bytes of the collection over its
    chunk count (status, the metrics and the forecast all size unread chunks so)."""
    return shard_bytes // chunks if chunks else 0


@dataclass
class SizeTally:
    """How the sizes shown were obtained, for the line that says so."""

    measured: int = 0
    estimated: int = 0
    assumed: int = 0
    how: set[str] = field(default_factory=set)  # where the estimates came from

    def describe(self) -> str:
        parts = []
        if self.measured:
            parts.append(f"{self.measured} measured (dataSize)")
        if self.estimated:
            source = " and ".join(sorted(self.how)) or "collection statistics"
            parts.append(f"{self.estimated} estimated from {source}")
        if self.assumed:
            parts.append(f"{self.assumed} assumed half the maximum chunk size")
        return "chunk sizes: " + ", ".join(parts) if parts else ""


class ChunkSizes:
    """Per connection: each namespace's chunk counts per shard, bytes per shard and
    measured ranges, read once and shared by every figure of the run."""

    def __init__(self, conn: Connection, *, max_measured: int = MAX_MEASURED) -> None:
        self.conn = conn
        self.major = int(conn.version.split(".")[0]) if conn.version[:1].isdigit() else 7
        self.tally = SizeTally()
        self._budget = max_measured
        self._docs: dict[str, dict[str, Any] | None] = {}
        self._counts: dict[str, dict[str, int]] = {}
        self._owned: dict[str, dict[str, int]] | None = None
        self._owned_read = False
        self._stats: dict[str, dict[str, int] | None] = {}
        self._measured: dict[tuple[str, Any, Any], int | None] = {}
        self._max_bytes: dict[str, int] = {}
        self._dsd = True
        # Chunk sizes a plan sets (MB): the cluster's, and per namespace.
        self.planned_mb: int | None = None
        self.planned_ns_mb: dict[str, int] = {}

    @property
    def by_data_size(self) -> bool:
        """6.0.3+ balances by data size and cuts migrations at the chunk size (§6.1)."""
        return self.major >= 6

    def move_cap(self, ns: str) -> int:
        """Bytes a balancer migration of `ns` moves at most once the plan has run: the
        chunk size it sets, else the one in effect (per collection, else the cluster's)."""
        if ns in self.planned_ns_mb:
            return self.planned_ns_mb[ns] * 1024 * 1024
        own = (self.collection(ns) or {}).get("maxChunkSizeBytes")
        if not own and self.planned_mb is not None:
            return self.planned_mb * 1024 * 1024
        return self.max_chunk_bytes(ns)

    # ------------------------------------------------------------ metadata
    def collection(self, ns: str) -> dict[str, Any] | None:
        if ns not in self._docs:
            found = self._read(lambda: self.conn.client.config.collections.find_one({"_id": ns}))
            self._docs[ns] = dict(found) if found is not None else None
        return self._docs[ns]

    def chunk_filter(self, ns: str) -> dict[str, Any] | None:
        """{uuid} on 5.0+, {ns} on 4.4 (reference §2.3); None when not sharded."""
        coll = self.collection(ns)
        if coll is None:
            return None
        return {"uuid": coll["uuid"]} if self.major >= 5 and "uuid" in coll else {"ns": ns}

    def count(self, query: Mapping[str, Any]) -> int:
        """An indexed count on config.chunks (the `count` command: COUNT_SCAN on the
        {uuid, shard, min} or {uuid, min} index, no document fetched)."""
        reply = self._read(lambda: self.conn.client.config.command("count", "chunks", query=query))
        return int(reply.get("n", 0))

    def shard_counts(self, ns: str, shards: Sequence[str]) -> dict[str, int]:
        """Chunks of `ns` per shard: one indexed count per shard."""
        if ns not in self._counts:
            base = self.chunk_filter(ns) or {"ns": ns}
            self._counts[ns] = {s: self.count({**base, "shard": s}) for s in shards}
        return self._counts[ns]

    def max_chunk_bytes(self, ns: str) -> int:
        if ns not in self._max_bytes:
            coll = self.collection(ns) or {}
            if coll.get("maxChunkSizeBytes"):
                self._max_bytes[ns] = int(coll["maxChunkSizeBytes"])
            else:
                config = self.conn.client.config
                setting = self._read(lambda: config.settings.find_one({"_id": "chunksize"}))
                mb = int(setting["value"]) if setting and setting.get("value") else None
                mb = mb or DEFAULT_CHUNK_MB.get(self.major, 128)
                self._max_bytes[ns] = mb * 1024 * 1024
        return self._max_bytes[ns]

    # ------------------------------------------------------------ statistics
    def shard_bytes(self, ns: str) -> dict[str, int] | None:
        """Bytes each shard owns of `ns`: `$shardedDataDistribution` (6.0.3+, one read for
        every namespace), else collStats' per-shard `size`; None when neither answers."""
        owned = self._read_owned()
        if owned is not None and ns in owned:
            self.tally.how.add("$shardedDataDistribution")
            return owned[ns]
        if ns not in self._stats:
            self._stats[ns] = self._read_stats(ns)
        if self._stats[ns] is not None:
            self.tally.how.add("collStats")
        return self._stats[ns]

    def estimate(self, ns: str, shard: str, shards: Sequence[str]) -> tuple[int, bool]:
        """A chunk's bytes on `shard`: its bytes of `ns` over its chunk count; (bytes,
        True) when estimated so, (half the maximum chunk size, False) when assumed."""
        per_shard = self.shard_bytes(ns)
        counts = self.shard_counts(ns, shards)
        if per_shard is not None and counts.get(shard):
            return per_chunk(per_shard.get(shard, 0), counts[shard]), True
        return self.max_chunk_bytes(ns) // 2, False

    def measure(self, ns: str, ranges: Sequence[Bounds]) -> list[int | None]:
        """`dataSize` (estimate: true) of each range, while the run's budget lasts and the
        server answers (it needs `find` on the collection); None where not measured."""
        coll = self.collection(ns)
        out: list[int | None] = []
        for lo, hi in ranges:
            key = (ns, sort_key(lo), sort_key(hi))
            if key not in self._measured:
                self._measured[key] = self._data_size(ns, coll, lo, hi)
            out.append(self._measured[key])
        return out

    def _data_size(
        self, ns: str, coll: Mapping[str, Any] | None, lo: Mapping[str, Any], hi: Mapping[str, Any]
    ) -> int | None:
        if coll is None or "key" not in coll or self._budget <= 0:
            return None
        self._budget -= 1
        command = {"dataSize": ns, "keyPattern": coll["key"], "min": dict(lo), "max": dict(hi)}
        try:
            reply = self.conn.client.admin.command({**command, "estimate": True})
        except PyMongoError:
            self._budget = 0  # refused (privileges): do not ask again for every chunk
            return None
        return int(reply.get("size") or 0)

    def _read_owned(self) -> dict[str, dict[str, int]] | None:
        if self._owned_read:
            return self._owned
        self._owned_read = True
        try:
            docs = list(self.conn.client.admin.aggregate([{"$shardedDataDistribution": {}}]))
        except PyMongoError:
            return None
        self._owned = {
            str(d["ns"]): {
                str(s["shardName"]): int(s.get("ownedSizeBytes") or 0) for s in d.get("shards", [])
            }
            for d in docs
        }
        return self._owned

    def _read_stats(self, ns: str) -> dict[str, int] | None:
        db, _, name = ns.partition(".")
        try:
            reply = self.conn.client[db].command("collStats", name)
        except OperationFailure:
            return None
        except PyMongoError as exc:
            raise ClusterError(f"{self.conn.uri}: collStats failed: {redact(str(exc))}") from None
        shards = reply.get("shards")
        if not isinstance(shards, Mapping):
            return None
        return {str(s): int(v.get("size") or 0) for s, v in shards.items()}

    def _read(self, fn: Any) -> Any:
        try:
            return fn()
        except PyMongoError as exc:
            raise ClusterError(
                f"{self.conn.uri}: reading config metadata failed: {redact(str(exc))}"
            ) from None
