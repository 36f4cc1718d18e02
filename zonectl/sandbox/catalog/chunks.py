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
The documents' form and encoding are chunk_doc.py's; per-shard figures shard_totals.py's.
"""

from __future__ import annotations

import datetime as dt
import itertools
from array import array
from collections.abc import Mapping, Sequence
from typing import Any

import bson
from bson import ObjectId, Timestamp

from zonectl.sandbox.catalog.chunk_doc import prune_history, ts_order
from zonectl.sandbox.catalog.chunk_reads import ChunkReads
from zonectl.sandbox.catalog.keystring import encode
from zonectl.sandbox.keyorder import compare


class ChunkStore(ChunkReads):
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
        self._totals.rebuild(self._shards, self._keys, self._sizes, self._counts)

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
        best = max((d["lastmod"] for d in decoded), default=Timestamp(1, 0), key=ts_order)
        self._major, self._minor = best.time, best.inc
        self._widen([d["min"] for d in decoded] + [d["max"] for d in decoded[-1:]])
        self._totals.rebuild(self._shards, self._keys, self._sizes, self._counts)

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
            self._totals.index_add(self._shards[i], key)
        self._shards[i : i + 1] = [self._shards[i]] * pieces
        self._sizes[i : i + 1] = array("q", _share(size, pieces, weights))
        self._counts[i : i + 1] = array("q", _share(count, pieces, weights))
        self._totals.add(self._shards[i], pieces - 1, 0, 0)
        return list(range(i, i + pieces))

    def move(self, i: int, to_shard: str, now: Timestamp) -> None:
        """Commit a migration of chunk i to `to_shard` (clears jumbo, as a successful
        migration of the chunk means it was movable)."""
        doc = self.document(i)
        self._major, self._minor = self._major + 1, 0
        history = prune_history(
            [{"validAfter": now, "shard": to_shard}, *doc.get("history", [])], now
        )
        self._docs[i] = self._encode_doc(
            doc["_id"], doc["min"], doc["max"], to_shard, Timestamp(self._major, 0), False, history
        )
        self._totals.add(self._shards[i], -1, -self._sizes[i], -self._counts[i])
        self._totals.index_remove(self._shards[i], self._keys[i])
        self._shards[i] = _intern(to_shard)
        self._totals.add(self._shards[i], 1, self._sizes[i], self._counts[i])
        self._totals.index_add(self._shards[i], self._keys[i])

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
        valid_after = max(stamps, key=ts_order) if stamps else now
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
        self._totals.add(self._shards[lo], -(hi - lo - 1), 0, 0)
        for key in self._keys[lo + 1 : hi]:
            self._totals.index_remove(self._shards[lo], key)
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
        self._totals.add(self._shards[i], 0, size_bytes - self._sizes[i], count - self._counts[i])
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
