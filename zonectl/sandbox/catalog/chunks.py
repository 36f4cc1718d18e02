"""The chunks of one sharded collection, kept sorted by the BSON order of `min`.

Compact enough for 1,000,000 chunks: per chunk one order-preserving `bytes` key of its min
(`keystring.encode`, bisected for O(log n) look-ups), the raw BSON of the document served
from `config.chunks` (streamed to clients without re-encoding), its shard name, and the
simulated size/count (never served; reference §2.3 has no such fields).

How to use it (the balancer and the DDL/zone commands go through these only):

    store.find(key)              index of the chunk owning a full shard-key value
    store.index_of_min(bound)    index of the chunk starting exactly at `bound`, or None
    store.chunk(i) / iter(store) `Chunk` snapshots (decoded), in min order
    store.shard_at(i), size_at(i), count_at(i), jumbo_at(i), min_at(i), max_at(i)
    store.split(i, [points], now)  split chunk i at interior points (versions: minor bumps)
    store.move(i, to_shard, now)   migrate chunk i (version: major + 1, history prepended)
    store.merge(lo, hi, now)       merge chunks lo..hi-1 on one shard into one
    store.set_jumbo(i, flag), set_size(i, size_bytes, count)
    store.version                collection version (highest chunk lastmod)

`now` is a cluster `Timestamp` (`Cluster.now_ts()`). Versions follow the 5.0+ config
server (src/mongo/db/s/config/sharding_catalog_manager_chunk_operations.cpp): a split
gives every piece collVersion.minor+1, +2, ...; a migration gives the moved chunk
(collVersion.major + 1, 0); a merge gives (collVersion.major, collVersion.minor + 1).
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import bson
from bson import Binary, ObjectId, Timestamp

from zonectl.model.keys import compare
from zonectl.sandbox.catalog.keystring import encode

# Old history entries are dropped once older than the snapshot window, keeping at least
# one (minSnapshotHistoryWindowInSeconds, default 300 s; _commitChunkMigration).
HISTORY_WINDOW_SECONDS = 300


@dataclass(frozen=True)
class Chunk:
    """A decoded snapshot of one chunk (what `config.chunks` serves, plus size/count)."""

    index: int
    id: Any
    min: dict[str, Any]
    max: dict[str, Any]
    shard: str
    lastmod: Timestamp
    jumbo: bool
    history: list[dict[str, Any]]
    size: int
    count: int
    on_current_shard_since: Timestamp | None = None
    document: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class DocForm:
    """How this server version writes a chunk document (reference §2.3)."""

    by_uuid: bool = True  # 5.0+: `uuid`; 4.4: `ns`, string `_id`, `lastmodEpoch`
    on_current_shard_since: bool = True  # 7.0+ (SERVER-71615)


class ChunkStore:
    def __init__(
        self,
        ns: str,
        uuid: Binary,
        epoch: ObjectId,
        form: DocForm,
    ) -> None:
        self.ns = ns
        self.uuid = uuid
        self.epoch = epoch
        self.form = form
        self._keys: list[bytes] = []
        self._docs: list[bytes] = []
        self._shards: list[str] = []
        self._sizes = array("q")
        self._counts = array("q")
        self._major = 1
        self._minor = 0
        # Per shard [chunks, bytes, documents], kept in step with every change: what a
        # shard's own statistics say without walking its chunks.
        self._totals: dict[str, list[int]] = {}
        # Per shard, the encoded mins of its chunks in order: the {uuid, shard, min} index.
        self._by_shard: dict[str, list[bytes]] = {}
        # The lowest and highest finite first-field values any bound ever had: where the
        # documents are, for splitting a chunk that reaches MinKey or MaxKey after merges
        # (the sandbox holds no documents to ask; balancer/view.py interpolates).
        self.extent: tuple[Any, Any] | None = None

    # ----------------------------------------------------------------- building
    def load(
        self,
        bounds: Sequence[Mapping[str, Any]],
        shards: Sequence[str],
        now: Timestamp,
        sizes: Sequence[int] | None = None,
        counts: Sequence[int] | None = None,
        keys: Sequence[bytes] | None = None,
    ) -> None:
        """Replace all chunks: chunk i is [bounds[i], bounds[i+1]) on shards[i], each at
        version (1, i) as shardCollection creates them (InitialSplitPolicy). `keys`: the
        mins' keystrings when the caller has already encoded them (a twin's check)."""
        n = len(shards)
        if len(bounds) != n + 1:
            raise ValueError("need one more bound than shards")
        self._keys = list(keys) if keys is not None else [encode(b) for b in bounds[:-1]]
        self._shards = [_intern(s) for s in shards]
        self._docs = [
            self._encode_doc(
                ObjectId(),
                bounds[i],
                bounds[i + 1],
                self._shards[i],
                Timestamp(1, i),
                False,
                [{"validAfter": now, "shard": self._shards[i]}],
            )
            for i in range(n)
        ]
        self._sizes = array("q", sizes if sizes is not None else [0] * n)
        self._counts = array("q", counts if counts is not None else [0] * n)
        self._major, self._minor = 1, max(n - 1, 0)
        self._widen(bounds)
        self._recount()

    def load_documents(
        self, docs: Sequence[bytes], sizes: Sequence[int], counts: Sequence[int]
    ) -> None:
        """Restore saved chunk documents (persistence): raw BSON in min order."""
        self._docs = list(docs)
        decoded = [bson.decode(d) for d in self._docs]
        self._keys = [encode(d["min"]) for d in decoded]
        self._shards = [_intern(d["shard"]) for d in decoded]
        self._sizes = array("q", sizes)
        self._counts = array("q", counts)
        best = max((d["lastmod"] for d in decoded), default=Timestamp(1, 0), key=_ts_order)
        self._major, self._minor = best.time, best.inc
        self._widen([d["min"] for d in decoded] + [d["max"] for d in decoded[-1:]])
        self._recount()

    # ----------------------------------------------------------------- reading
    def __len__(self) -> int:
        return len(self._docs)

    def __iter__(self) -> Iterator[Chunk]:
        for i in range(len(self._docs)):
            yield self.chunk(i)

    @property
    def version(self) -> Timestamp:
        return Timestamp(self._major, self._minor)

    def find(self, key: Mapping[str, Any]) -> int:
        """Index of the chunk whose [min, max) holds the full shard-key value `key`."""
        return max(bisect.bisect_right(self._keys, encode(key)) - 1, 0)

    def index_of_min(self, bound: Mapping[str, Any]) -> int | None:
        """Index of the chunk whose min equals `bound` (BSON equality), else None."""
        k = encode(bound)
        i = bisect.bisect_left(self._keys, k)
        return i if i < len(self._keys) and self._keys[i] == k else None

    def bisect_min(self, bound: Mapping[str, Any]) -> int:
        """Number of chunks whose min sorts strictly below `bound`."""
        return bisect.bisect_left(self._keys, encode(bound))

    def min_keys(self) -> list[bytes]:
        """The order-preserving encoded mins (not a copy: read-only, under the lock)."""
        return self._keys

    def raw(self, i: int) -> bytes:
        return self._docs[i]

    def raw_slice(self, lo: int = 0, hi: int | None = None) -> list[bytes]:
        """A copy of the raw documents lo..hi (a cursor's consistent snapshot)."""
        return self._docs[lo:hi]

    def document(self, i: int) -> dict[str, Any]:
        return bson.decode(self._docs[i])

    def chunk(self, i: int) -> Chunk:
        doc = self.document(i)
        return Chunk(
            index=i,
            id=doc["_id"],
            min=doc["min"],
            max=doc["max"],
            shard=doc["shard"],
            lastmod=doc["lastmod"],
            jumbo=bool(doc.get("jumbo", False)),
            history=list(doc.get("history", [])),
            size=self._sizes[i],
            count=self._counts[i],
            on_current_shard_since=doc.get("onCurrentShardSince"),
            document=doc,
        )

    def min_at(self, i: int) -> dict[str, Any]:
        return self.document(i)["min"]  # type: ignore[no-any-return]

    def max_at(self, i: int) -> dict[str, Any]:
        return self.document(i)["max"]  # type: ignore[no-any-return]

    def shard_at(self, i: int) -> str:
        return self._shards[i]

    def size_at(self, i: int) -> int:
        return self._sizes[i]

    def count_at(self, i: int) -> int:
        return self._counts[i]

    def jumbo_at(self, i: int) -> bool:
        return bool(self.document(i).get("jumbo", False))

    def shards(self) -> list[str]:
        """Shard of every chunk, in min order (a copy)."""
        return list(self._shards)

    def count_on(self, shard: str, lo: int, hi: int) -> int:
        """How many of chunks lo..hi-1 are on `shard`, from the per-shard index."""
        keys = self._by_shard.get(shard, [])
        return self._index_pos(keys, hi) - self._index_pos(keys, lo)

    def positions_on(self, shard: str, lo: int, hi: int) -> list[int]:
        """The indices among lo..hi-1 of the chunks on `shard`, ascending: each found by a
        seek of the per-shard index, so the cost follows the chunks found."""
        keys = self._by_shard.get(shard, [])
        found = keys[self._index_pos(keys, lo) : self._index_pos(keys, hi)]
        return [bisect.bisect_left(self._keys, key, lo, hi) for key in found]

    def _index_pos(self, keys: list[bytes], i: int) -> int:
        return len(keys) if i >= len(self._keys) else bisect.bisect_left(keys, self._keys[i])

    def shards_slice(self, lo: int, hi: int) -> list[str]:
        """Shard of chunks lo..hi-1, in min order (a copy)."""
        return self._shards[lo:hi]

    def chunk_counts(self) -> dict[str, int]:
        return {s: t[0] for s, t in self._totals.items() if t[0]}

    def data_sizes(self) -> dict[str, int]:
        return {s: t[1] for s, t in self._totals.items() if t[0]}

    def shard_totals(self) -> dict[str, tuple[int, int, int]]:
        """Per shard owning chunks: (chunks, bytes, documents)."""
        return {s: (t[0], t[1], t[2]) for s, t in self._totals.items() if t[0]}

    def total_size(self) -> int:
        return sum(self._sizes)

    def total_count(self) -> int:
        return sum(self._counts)

    # ----------------------------------------------------------------- changing
    def split(
        self,
        i: int,
        points: Sequence[Mapping[str, Any]],
        now: Timestamp,
        weights: Sequence[int] | None = None,
    ) -> list[int]:
        """Split chunk i at `points` (full keys strictly inside it, ascending). Size and count
        are shared evenly between the pieces, or in proportion to `weights` (one per piece).
        Returns the pieces' indices. The first piece keeps the chunk's `_id` and history, as
        commitChunkSplit does."""
        doc = self.document(i)
        lo, hi = doc["min"], doc["max"]
        edges = [lo, *points, hi]
        for a, b in itertools.pairwise(edges):
            if compare(a, b) >= 0:
                raise ValueError(f"split points must lie strictly inside the chunk {lo}..{hi}")
        pieces = len(edges) - 1
        self._widen(points)
        size, count = self._sizes[i], self._counts[i]
        new_docs, new_keys = [], []
        for p in range(pieces):
            self._minor += 1
            new_docs.append(
                self._encode_doc(
                    doc["_id"] if p == 0 else ObjectId(),
                    edges[p],
                    edges[p + 1],
                    doc["shard"],
                    Timestamp(self._major, self._minor),
                    bool(doc.get("jumbo", False)),
                    list(doc.get("history", [])),
                )
            )
            new_keys.append(encode(edges[p]))
        self._docs[i : i + 1] = new_docs
        self._keys[i : i + 1] = new_keys
        for key in new_keys[1:]:
            self._index_add(self._shards[i], key)
        self._shards[i : i + 1] = [self._shards[i]] * pieces
        self._sizes[i : i + 1] = array("q", _share(size, pieces, weights))
        self._counts[i : i + 1] = array("q", _share(count, pieces, weights))
        self._add(self._shards[i], pieces - 1, 0, 0)
        return list(range(i, i + pieces))

    def move(self, i: int, to_shard: str, now: Timestamp) -> None:
        """Commit a migration of chunk i to `to_shard` (clears jumbo, as a successful
        migration of the chunk means it was movable)."""
        doc = self.document(i)
        self._major, self._minor = self._major + 1, 0
        history = _prune([{"validAfter": now, "shard": to_shard}, *doc.get("history", [])], now)
        self._docs[i] = self._encode_doc(
            doc["_id"], doc["min"], doc["max"], to_shard, Timestamp(self._major, 0), False, history
        )
        self._add(self._shards[i], -1, -self._sizes[i], -self._counts[i])
        self._index_remove(self._shards[i], self._keys[i])
        self._shards[i] = _intern(to_shard)
        self._add(self._shards[i], 1, self._sizes[i], self._counts[i])
        self._index_add(self._shards[i], self._keys[i])

    def merge(self, lo: int, hi: int, now: Timestamp) -> None:
        """Merge chunks lo..hi-1 (contiguous, same shard: the caller checks) into one.

        The merged chunk's single history entry is valid after the latest `validAfter` of
        the pieces (`commitChunksMerge` and `commitMergeAllChunksOnShard` in
        mongo:src/mongo/db/s/config/sharding_catalog_manager_chunk_operations.cpp), so a
        merge does not restart the auto-merger's history window; `now` when none has one.
        """
        if hi - lo < 2:
            raise ValueError("merging needs at least two chunks")
        first, last = self.document(lo), self.document(hi - 1)
        stamps = [h[0]["validAfter"] for h in (self.document(j).get("history") for j in
                                                range(lo, hi)) if h]  # fmt: skip
        valid_after = max(stamps, key=_ts_order) if stamps else now
        self._minor += 1
        shard = first["shard"]
        merged = self._encode_doc(
            first["_id"],
            first["min"],
            last["max"],
            shard,
            Timestamp(self._major, self._minor),
            False,
            [{"validAfter": valid_after, "shard": shard}],
        )
        self._docs[lo:hi] = [merged]
        self._add(self._shards[lo], -(hi - lo - 1), 0, 0)
        for key in self._keys[lo + 1 : hi]:
            self._index_remove(self._shards[lo], key)
        self._keys[lo:hi] = [self._keys[lo]]
        self._shards[lo:hi] = [self._shards[lo]]
        self._sizes[lo:hi] = array("q", [sum(self._sizes[lo:hi])])
        self._counts[lo:hi] = array("q", [sum(self._counts[lo:hi])])

    def set_jumbo(self, i: int, flag: bool) -> None:
        doc = self.document(i)
        self._docs[i] = self._encode_doc(
            doc["_id"],
            doc["min"],
            doc["max"],
            doc["shard"],
            doc["lastmod"],
            flag,
            list(doc.get("history", [])),
        )

    def set_size(self, i: int, size_bytes: int, count: int) -> None:
        self._add(self._shards[i], 0, size_bytes - self._sizes[i], count - self._counts[i])
        self._sizes[i] = size_bytes
        self._counts[i] = count

    def _widen(self, bounds: Sequence[Mapping[str, Any]]) -> None:
        for bound in bounds:
            value = next(iter(bound.values()), None) if bound else None
            if isinstance(value, bool) or not isinstance(value, int | float | dt.datetime):
                continue
            try:
                lo, hi = self.extent if self.extent is not None else (value, value)
                self.extent = (min(lo, value), max(hi, value))
            except TypeError:  # mixed types: keep what we had
                continue

    def _add(self, shard: str, chunks: int, size: int, count: int) -> None:
        t = self._totals.setdefault(shard, [0, 0, 0])
        t[0] += chunks
        t[1] += size
        t[2] += count

    def _recount(self) -> None:
        self._totals = {}
        self._by_shard = {}
        for shard, size, count in zip(self._shards, self._sizes, self._counts, strict=True):
            self._add(shard, 1, size, count)
        for key, shard in zip(self._keys, self._shards, strict=True):
            self._by_shard.setdefault(shard, []).append(key)  # keys ascend: stays sorted

    def _index_add(self, shard: str, key: bytes) -> None:
        bisect.insort(self._by_shard.setdefault(shard, []), key)

    def _index_remove(self, shard: str, key: bytes) -> None:
        keys = self._by_shard[shard]
        del keys[bisect.bisect_left(keys, key)]

    def sizes(self) -> tuple[list[int], list[int]]:
        return list(self._sizes), list(self._counts)

    # ----------------------------------------------------------------- encoding
    def _encode_doc(
        self,
        _id: Any,
        lo: Mapping[str, Any],
        hi: Mapping[str, Any],
        shard: str,
        lastmod: Timestamp,
        jumbo: bool,
        history: list[dict[str, Any]],
    ) -> bytes:
        # Field order of ChunkType::toConfigBSON: _id, uuid|ns, min, max, shard, lastmod,
        # (lastmodEpoch in 4.4), jumbo only when true, onCurrentShardSince (7.0+), history.
        doc: dict[str, Any] = {"_id": _id}
        if self.form.by_uuid:
            doc["uuid"] = self.uuid
        else:
            doc["ns"] = self.ns
        doc["min"] = lo
        doc["max"] = hi
        doc["shard"] = shard
        doc["lastmod"] = lastmod
        if not self.form.by_uuid:
            doc["lastmodEpoch"] = self.epoch
        if jumbo:
            doc["jumbo"] = True
        if self.form.on_current_shard_since and history:
            doc["onCurrentShardSince"] = history[0]["validAfter"]
        doc["history"] = history
        return bson.encode(doc)


_INTERNED: dict[str, str] = {}


def _intern(name: str) -> str:
    return _INTERNED.setdefault(name, name)


def _share(total: int, pieces: int, weights: Sequence[int] | None = None) -> list[int]:
    if weights is not None and len(weights) == pieces and sum(weights) > 0:
        parts = [total * w // sum(weights) for w in weights]
        parts[-1] += total - sum(parts)
        return parts
    base, extra = divmod(total, pieces)
    return [base + (1 if p < extra else 0) for p in range(pieces)]


def _prune(history: list[dict[str, Any]], now: Timestamp) -> list[dict[str, Any]]:
    # Pop the oldest entries while more than one is left and it is outside the window.
    while len(history) > 1 and history[-1]["validAfter"].time + HISTORY_WINDOW_SECONDS < now.time:
        history.pop()
    return history


def _ts_order(ts: Timestamp) -> tuple[int, int]:
    return (ts.time, ts.inc)
