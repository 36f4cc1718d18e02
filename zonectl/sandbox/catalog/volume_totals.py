"""Running sums of the files dbStats totals: per (shard, database) each figure summed over its
collections' files, and per shard the bytes all its files take. Each (shard, collection) file
adds its `Part`, replaced whenever one of its inputs changes (catalog/volumes.py calls `put`),
so a dbStats reads sums instead of walking every collection's files (volume_stats.files(),
the walk these sums equal)."""

from __future__ import annotations

from typing import NamedTuple


class Part(NamedTuple):
    """One collection's files on one shard, as dbStats sums them."""

    objects: int  # documents held now
    size: int  # logical bytes held now
    storage: int  # the data file's size
    free: int  # of it, free for later writes of the collection
    index_size: int  # the index files' size
    index_free: int
    indexes: int


class Sums(NamedTuple):
    """A database's files on one shard, summed."""

    collections: int = 0  # files (collections with files on the shard)
    objects: int = 0
    size: int = 0
    storage: int = 0
    free: int = 0
    index_size: int = 0
    index_free: int = 0
    indexes: int = 0


def part_of(
    now: tuple[int, int],
    mark: tuple[int, int],
    compression: float,
    index_bytes_per_document: float,
    indexes: int,
) -> Part:
    """The figures volume_stats.files() gives a file: its size follows the high-water mark
    (`mark`: bytes, documents), its free space is the mark less what is held (`now`)."""
    nbytes, docs = now
    stored = round(mark[0] * compression)
    live = round(nbytes * compression)
    index = round(mark[1] * index_bytes_per_document)
    index_live = round(docs * index_bytes_per_document)
    return Part(docs, nbytes, stored, stored - live, index, index - index_live, indexes)


class FileTotals:
    def __init__(self) -> None:
        self._parts: dict[tuple[str, str], Part] = {}
        self._sums: dict[tuple[str, str], list[int]] = {}  # (shard, db) -> [files, *Part]
        self._used: dict[str, int] = {}  # shard -> storage + index over all its files

    def put(self, shard: str, ns: str, part: Part | None) -> None:
        """The file of `ns` on `shard` is now `part` (None: it has no file there)."""
        key = (shard, ns)
        old = self._parts.pop(key, None)
        if old == part:
            if part is not None:
                self._parts[key] = part
            return
        db = ns.split(".", 1)[0]
        sums = self._sums.setdefault((shard, db), [0] * 8)
        if old is not None:
            sums[:] = [a - b for a, b in zip(sums, (1, *old), strict=True)]
            self._used[shard] -= old.storage + old.index_size
        if part is not None:
            self._parts[key] = part
            sums[:] = [a + b for a, b in zip(sums, (1, *part), strict=True)]
            self._used[shard] = self._used.get(shard, 0) + part.storage + part.index_size

    def clear(self) -> None:
        self._parts.clear()
        self._sums.clear()
        self._used.clear()

    def sums(self, shard: str, db: str) -> Sums:
        found = self._sums.get((shard, db))
        return Sums(*found) if found is not None else Sums()

    def used(self, shard: str) -> int:
        """What the files on `shard` take, every database's."""
        return self._used.get(shard, 0)
