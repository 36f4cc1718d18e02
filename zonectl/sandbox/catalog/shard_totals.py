"""Per-shard accounting of one collection's chunks, kept in step with every change: each
shard's (chunks, bytes, documents), and the encoded mins of its chunks in order (the
{uuid, shard, min} index), so a shard's figures need no walk over the chunks. A watcher
(`watch`, catalog/volumes.py) hears of every growth of a shard's bytes or documents, a
follower (`follow`, the volumes' running totals) of every change of a shard's figures."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence


class ShardTotals:
    def __init__(self) -> None:
        self._totals: dict[str, list[int]] = {}  # shard -> [chunks, bytes, documents]
        self._by_shard: dict[str, list[bytes]] = {}  # shard -> its chunks' encoded mins
        # Called with (shard, bytes, documents) after either grew on that shard.
        self.watch: Callable[[str, int, int], None] | None = None
        # Called with (shard, chunks, bytes, documents) after any of them changed there.
        self.follow: Callable[[str, int, int, int], None] | None = None

    def rebuild(
        self, shards: Sequence[str], keys: Sequence[bytes], sizes: Iterable[int],
        counts: Iterable[int],
    ) -> None:  # fmt: skip
        """Recount from scratch (chunk i: shards[i], keys[i], sizes[i], counts[i])."""
        before = list(self._totals)
        self._totals = {}
        self._by_shard = {}
        watch, self.watch = self.watch, None  # once per shard below, not once per chunk
        follow, self.follow = self.follow, None
        for shard, size, count in zip(shards, sizes, counts, strict=True):
            self.add(shard, 1, size, count)
        self.watch, self.follow = watch, follow
        self.announce()
        self.tell([*before, *self._totals])
        for key, shard in zip(keys, shards, strict=True):
            self._by_shard.setdefault(shard, []).append(key)  # keys ascend: stays sorted

    def add(self, shard: str, chunks: int, size: int, count: int) -> None:
        t = self._totals.setdefault(shard, [0, 0, 0])
        t[0] += chunks
        t[1] += size
        t[2] += count
        if self.watch is not None and (size > 0 or count > 0):
            self.watch(shard, t[1], t[2])
        if self.follow is not None and (chunks or size or count):
            self.follow(shard, t[0], t[1], t[2])

    def announce(self) -> None:
        """Tell the watcher what every shard holds now."""
        if self.watch is not None:
            for shard, t in self._totals.items():
                self.watch(shard, t[1], t[2])

    def tell(self, shards: Iterable[str]) -> None:
        """Tell the follower what each of `shards` holds now (zeros for one that holds
        nothing)."""
        if self.follow is not None:
            for shard in dict.fromkeys(shards):
                t = self._totals.get(shard, [0, 0, 0])
                self.follow(shard, t[0], t[1], t[2])

    def index_add(self, shard: str, key: bytes) -> None:
        bisect.insort(self._by_shard.setdefault(shard, []), key)

    def index_remove(self, shard: str, key: bytes) -> None:
        keys = self._by_shard[shard]
        del keys[bisect.bisect_left(keys, key)]

    def count_on(self, shard: str, all_keys: Sequence[bytes], lo: int, hi: int) -> int:
        """How many of chunks lo..hi-1 (of `all_keys`, every chunk's min) are on `shard`."""
        keys = self._by_shard.get(shard, [])
        return _pos(keys, all_keys, hi) - _pos(keys, all_keys, lo)

    def positions_on(self, shard: str, all_keys: Sequence[bytes], lo: int, hi: int) -> list[int]:
        """The indices among lo..hi-1 of the chunks on `shard`, ascending: each found by a
        seek of the per-shard index, so the cost follows the chunks found."""
        keys = self._by_shard.get(shard, [])
        found = keys[_pos(keys, all_keys, lo) : _pos(keys, all_keys, hi)]
        return [bisect.bisect_left(all_keys, key, lo, hi) for key in found]

    def chunk_counts(self) -> dict[str, int]:
        return {s: t[0] for s, t in self._totals.items() if t[0]}

    def data_sizes(self) -> dict[str, int]:
        return {s: t[1] for s, t in self._totals.items() if t[0]}

    def per_shard(self) -> dict[str, tuple[int, int, int]]:
        """Per shard owning chunks: (chunks, bytes, documents)."""
        return {s: (t[0], t[1], t[2]) for s, t in self._totals.items() if t[0]}


def _pos(keys: list[bytes], all_keys: Sequence[bytes], i: int) -> int:
    return len(keys) if i >= len(all_keys) else bisect.bisect_left(keys, all_keys[i])
