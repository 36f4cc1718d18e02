"""One size for a chunk everywhere (the plan's impact line, the forecast, status and the
metrics): measured by `dataSize` where that is affordable, else estimated from collection
statistics (a shard's bytes of the collection over its chunk count), else half the maximum
chunk size. Reads are indexed counts and per-shard statistics, never every chunk."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.keys import sort_key
from zonectl.mongo.chunk_batch import WITHHELD, ChunkBatch
from zonectl.mongo.connect import Connection
from zonectl.mongo.size_stats import read_stats_concurrently, refusal
from zonectl.mongo.state import WHOLE, EntriesRead

DEFAULT_CHUNK_MB = {4: 64, 5: 64}  # 128 MB from 6.0 (reference §2.5)
# dataSize is one command per chunk (the router asks every shard owning the range,
# cluster_data_size_cmd.cpp): past this many per run, the estimate is used instead.
MAX_MEASURED = 2000
# What `plan` measures by default (--measure-chunks): a read-only command that CI runs on
# every pull request keeps its load on the shards small.
PLAN_MEASURED = 16

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
    refused: dict[str, str] = field(default_factory=dict)  # command -> the missing privilege
    budget: int = MAX_MEASURED  # dataSize commands allowed
    # Measured chunks whose spread around their shard's average the estimates were given
    # (the forecast's size_spread); 0: every estimate is the average.
    spread_like: int = 0

    def as_dict(self) -> dict[str, Any]:
        """For the plan's JSON: which chunk sizes were measured and which estimated."""
        return {
            "measured": self.measured,
            "estimated": self.estimated,
            "assumed": self.assumed,
            "estimated_from": sorted(self.how),
            "measure_budget": self.budget,
            "estimates_spread_like_measured": self.spread_like,
            "refused": dict(sorted(self.refused.items())),
        }

    def describe(self) -> str:
        parts = []
        if self.measured:
            parts.append(f"{self.measured} measured (dataSize)")
        if self.estimated:
            source = " and ".join(sorted(self.how)) or "collection statistics"
            spread = f", spread like the {self.spread_like} measured" if self.spread_like else ""
            parts.append(f"{self.estimated} estimated from {source}{spread}")
        if self.assumed:
            parts.append(f"{self.assumed} assumed half the maximum chunk size")
        parts += [f"{cmd} not permitted ({why})" for cmd, why in sorted(self.refused.items())]
        return "chunk sizes: " + ", ".join(parts) if parts else ""


class ChunkSizes:
    """Per connection: each namespace's chunk counts per shard, bytes per shard and
    measured ranges, read once and shared by every figure of the run. Counts go through
    `batch` (one aggregate for many), dataSize within the `max_measured` budget."""

    def __init__(
        self,
        conn: Connection,
        *,
        max_measured: int = MAX_MEASURED,
        batch: ChunkBatch | None = None,
    ) -> None:
        self.conn = conn
        self.major = int(conn.version.split(".")[0]) if conn.version[:1].isdigit() else 7
        self.tally = SizeTally(budget=max_measured)
        self.batch = batch if batch is not None else ChunkBatch(conn)
        self._budget = max_measured
        self._docs: dict[str, dict[str, Any] | None] = {}
        self._known: EntriesRead | None = None  # the run's state read (`know`)
        self._owned: dict[str, dict[str, int]] | None = None
        self._owned_read = False
        self._stats: dict[str, dict[str, int] | None] = {}
        self._measured: dict[tuple[str, Any, Any], int | None] = {}
        self._measured_ns: set[str] = set()  # namespaces with a range in `_measured`
        self._max_bytes: dict[str, int] = {}
        self._counts: dict[tuple[str, tuple[str, ...]], dict[str, int]] = {}
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
    def know(self, read: EntriesRead) -> None:
        """The run's state read already holds the config.collections entries of the
        namespaces it asked about and the `chunksize` setting: those are taken from it,
        not asked again (the same answer, one read per run)."""
        self._known = read

    def _from_known(self, ns: str) -> bool:
        """`ns`'s entry taken from the state read into `_docs`, when that read asked for it."""
        if self._known is None or not self._known.knows(ns):
            return False
        found = self._known.entries.get(ns)
        self._docs[ns] = dict(found) if found is not None else None
        return True

    def read_collections(self, namespaces: Sequence[str]) -> None:
        """The config.collections entries of `namespaces` in one find ($in over _id), so
        none is looked up one by one later (those the state read holds: from it)."""
        wanted = sorted(
            {ns for ns in namespaces if ns not in self._docs and not self._from_known(ns)}
        )
        if not wanted:
            return
        config = self.conn.client.config
        found = self._read(
            lambda: list(config.collections.find({"_id": {"$in": wanted}}, batch_size=WHOLE))
        )
        for ns in wanted:
            self._docs[ns] = None
        for doc in found:
            self._docs[str(doc["_id"])] = dict(doc)

    def collection(self, ns: str) -> dict[str, Any] | None:
        if ns not in self._docs and not self._from_known(ns):
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
        """An indexed count on config.chunks (on the {uuid, shard, min} or {uuid, min}
        index, no document fetched), sent with the run's other reads (ChunkBatch)."""
        return self.batch.count(query)

    def shard_counts(self, ns: str, shards: Sequence[str]) -> dict[str, int]:
        """Chunks of `ns` per shard: one indexed count per shard, batched (a small namespace:
        from its chunks, read whole); once answered, kept (as the batch keeps its answers),
        so the many estimates of a namespace's chunks do not ask again."""
        key = (ns, tuple(shards))
        known = self._counts.get(key)
        if known is not None:
            return dict(known)
        base = self.chunk_filter(ns) or {"ns": ns}
        table = self.batch.table(base)  # read whole: counted once, in memory
        if table is not None and table is not WITHHELD:  # real even in a rehearsal: kept now
            counts = self._counts[key] = table.by_shard(shards)
            return dict(counts)
        if table is not None:
            counts = table.by_shard(shards)  # WITHHELD: the stand-in zeros
        else:
            counts = self.batch.count_by_shard(base, shards)
        # kept once real (a rehearsal's zeros may be stand-ins)
        self.batch.when_real(lambda: self._counts.__setitem__(key, counts))
        return dict(counts)

    def max_chunk_bytes(self, ns: str) -> int:
        if ns not in self._max_bytes:
            coll = self.collection(ns) or {}
            if coll.get("maxChunkSizeBytes"):
                self._max_bytes[ns] = int(coll["maxChunkSizeBytes"])
            else:
                self._max_bytes[ns] = self._default_max_bytes()
        return self._max_bytes[ns]

    def _default_max_bytes(self) -> int:
        """The `chunksize` setting in MB (reference §2.5), else the version's default: from
        the state read when it asked for the setting (`know`), else read once per run."""
        if "" not in self._max_bytes:
            asked, setting = self._known.setting("chunksize") if self._known else (False, None)
            if not asked:
                config = self.conn.client.config
                setting = self._read(lambda: config.settings.find_one({"_id": "chunksize"}))
            mb = int(setting["value"]) if setting and setting.get("value") else None
            self._max_bytes[""] = (mb or DEFAULT_CHUNK_MB.get(self.major, 128)) * 1024 * 1024
        return self._max_bytes[""]

    # ------------------------------------------------------------ statistics
    def shard_bytes(self, ns: str) -> dict[str, int] | None:
        """Bytes each shard owns of `ns`: `$shardedDataDistribution` (6.0.3+, one read for
        every namespace), else collStats' per-shard `size`; None when neither answers."""
        owned = self._read_owned()
        if owned is not None and ns in owned:
            self.tally.how.add("$shardedDataDistribution")
            return owned[ns]
        self.read_stats([ns])
        if self._stats.get(ns) is not None:
            self.tally.how.add("collStats")
        return self._stats.get(ns)

    def prepare(self, namespaces: Sequence[str]) -> None:
        """Before sizing many namespaces: their collStats at once where the one
        $shardedDataDistribution aggregation is not available. Nothing to size (a status
        with every collection in its zones): nothing read."""
        if namespaces and self._read_owned() is None:
            self.read_stats([ns for ns in namespaces if self.chunk_filter(ns) is not None])

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
        rehearsing = self.batch.recording
        coll = self.collection(ns)
        if ns not in self._measured_ns and not self._measurable(coll):
            return [None for _ in ranges]  # nothing of it measured, nor to be
        out: list[int | None] = []
        for lo, hi in ranges:
            key = (ns, sort_key(lo), sort_key(hi))
            if key in self._measured:
                out.append(self._measured[key])
            elif rehearsing:  # a rehearsal (ChunkBatch.replay) spends nothing
                if self._measurable(coll):
                    self.batch.stand_in()  # the run measures it
                out.append(None)
            else:
                self._measured_ns.add(ns)
                self._measured[key] = self._data_size(ns, coll, lo, hi)
                out.append(self._measured[key])
        return out

    def _measurable(self, coll: Mapping[str, Any] | None) -> bool:
        """Whether `_data_size` would send a dataSize (else its answer is None)."""
        return coll is not None and "key" in coll and self._budget > 0

    def _data_size(
        self, ns: str, coll: Mapping[str, Any] | None, lo: Mapping[str, Any], hi: Mapping[str, Any]
    ) -> int | None:
        if coll is None or not self._measurable(coll):
            return None
        self._budget -= 1
        command = {"dataSize": ns, "keyPattern": coll["key"], "min": dict(lo), "max": dict(hi)}
        try:
            reply = self.conn.client.admin.command({**command, "estimate": True})
        except PyMongoError as exc:
            self._budget = 0  # refused (privileges): do not ask again for every chunk
            self.tally.refused["dataSize"] = refusal(exc, f"the find action on {ns}")
            return None
        return int(reply.get("size") or 0)

    def _read_owned(self) -> dict[str, dict[str, int]] | None:
        if self._owned_read:
            return self._owned
        self._owned_read = True
        try:
            docs = list(
                self.conn.client.admin.aggregate(
                    [{"$shardedDataDistribution": {}}], batchSize=WHOLE
                )
            )
        except PyMongoError as exc:
            if self.major >= 6:  # 6.0.3+ has the stage; before, its absence is no refusal
                why = refusal(exc, "the shardedDataDistribution cluster action (clusterMonitor)")
                if "not authorized" in why:
                    self.tally.refused["$shardedDataDistribution"] = why
            return None
        self._owned = {
            str(d["ns"]): {
                str(s["shardName"]): int(s.get("ownedSizeBytes") or 0) for s in d.get("shards", [])
            }
            for d in docs
        }
        return self._owned

    def read_stats(self, namespaces: Sequence[str]) -> None:
        """collStats' per-shard `size` of each namespace not read yet, sent concurrently
        (where $shardedDataDistribution is missing: before 6.0.3, or refused)."""
        wanted = [ns for ns in dict.fromkeys(namespaces) if ns not in self._stats]
        if not wanted:
            return
        found, refused = read_stats_concurrently(self.conn, wanted)
        self._stats.update(found)
        if refused:
            self.tally.refused["collStats"] = refused

    def _read(self, fn: Any) -> Any:
        try:
            return fn()
        except PyMongoError as exc:
            raise ClusterError(
                f"{self.conn.uri}: reading config metadata failed: {redact(str(exc))}"
            ) from None
