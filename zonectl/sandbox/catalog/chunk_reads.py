"""Reading one sharded collection's chunks (ChunkStore's read side, chunks.py): they are
kept sorted by the BSON order of `min` as parallel arrays, one entry per chunk: the
order-preserving keystring of its min (bisected), the raw BSON document `config.chunks`
serves, its shard, and its simulated size and document count."""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import bson
from bson import Binary, ObjectId, Timestamp

from zonectl.sandbox.catalog.chunk_doc import Chunk, ChunkEncoder, DocForm
from zonectl.sandbox.catalog.keystring import encode
from zonectl.sandbox.catalog.shard_totals import ShardTotals


class ChunkReads:
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
        self._encode_doc = ChunkEncoder(ns, uuid, epoch, form).encode
        self._keys: list[bytes] = []
        self._docs: list[bytes] = []
        self._shards: list[str] = []
        self._sizes = array("q")
        self._counts = array("q")
        self._major = 1
        self._minor = 0
        # Per shard (chunks, bytes, documents) and the {uuid, shard, min} index.
        self._totals = ShardTotals()
        # The lowest and highest finite first-field values any bound ever had: where the
        # documents are, for splitting a chunk that reaches MinKey or MaxKey after merges
        # (the sandbox holds no documents to ask; balancer/view.py interpolates).
        self.extent: tuple[Any, Any] | None = None

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
        return self._totals.count_on(shard, self._keys, lo, hi)

    def positions_on(self, shard: str, lo: int, hi: int) -> list[int]:
        """The indices among lo..hi-1 of the chunks on `shard`, ascending (ShardTotals)."""
        return self._totals.positions_on(shard, self._keys, lo, hi)

    def shards_slice(self, lo: int, hi: int) -> list[str]:
        """Shard of chunks lo..hi-1, in min order (a copy)."""
        return self._shards[lo:hi]

    def chunk_counts(self) -> dict[str, int]:
        return self._totals.chunk_counts()

    def data_sizes(self) -> dict[str, int]:
        return self._totals.data_sizes()

    def on_growth(self, watch: Callable[[str, int, int], None] | None) -> None:
        """Call `watch(shard, bytes, documents)` whenever a shard's figures grow, and now for
        what each holds (catalog/volumes.py keeps each file's allocated size from it)."""
        self._totals.watch = watch
        self._totals.announce()

    def on_change(self, follow: Callable[[str, int, int, int], None] | None) -> None:
        """Call `follow(shard, chunks, bytes, documents)` whenever a shard's figures change,
        and now for what each holds (the volumes' running totals follow them)."""
        self._totals.follow = follow
        self._totals.tell(self._totals.per_shard())

    def shard_totals(self) -> dict[str, tuple[int, int, int]]:
        """Per shard owning chunks: (chunks, bytes, documents)."""
        return self._totals.per_shard()

    def total_size(self) -> int:
        return sum(self._sizes)

    def total_count(self) -> int:
        return sum(self._counts)

    def sizes(self) -> tuple[list[int], list[int]]:
        return list(self._sizes), list(self._counts)
