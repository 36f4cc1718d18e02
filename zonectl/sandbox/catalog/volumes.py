"""Each shard's volume and what WiredTiger keeps allocated on it, per (shard, collection).

A shard's volume has a size and a baseline (what else lies on it: the journal, the oplog,
other files). Each collection stores its documents compressed (`compression`, the ratio
storageSize / size) and its indexes at `index_bytes_per_document` per document. What a
collection's files take on a shard never shrinks on its own: WiredTiger keeps the blocks that
documents leaving (deletes, migrations, the range deleter) freed inside the file and reuses
them for later writes of the same collection; only dropping the collection (or `compact`,
which a mongos does not run) gives them back. So per (shard, namespace) this keeps the
high-water mark of the logical bytes and documents the shard held: the file's size follows
the mark, its free space is the mark less what is held now.

The chunk stores report every growth (`track`); unsharded collections are looked at when a
figure is read. What a shard holds now (`held`) is the one place that says which bytes count:
owned chunks, plus orphans if an orphan model is plugged in (`orphans`). Figures are computed
by volume_stats.py, which knows the cluster; this module knows none of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

GIB = 1024**3
# A shard without `disk:` in the cluster file: a 1 TiB volume with 2 GiB of other files.
DEFAULT_DISK_SIZE = 1024 * GIB
DEFAULT_BASELINE = 2 * GIB
# storageSize / size under WiredTiger's default block compressor, snappy (docs/sandbox-
# fidelity.md "Volumes" cites the figures this is taken from).
DEFAULT_COMPRESSION = 0.5
# Bytes of index per document over the collection's indexes (the _id index and the shard key
# index), prefix-compressed: an estimate, documented in docs/sandbox-fidelity.md.
DEFAULT_INDEX_BYTES_PER_DOCUMENT = 64.0

# (shard, namespace) -> (bytes, documents) held as orphans there; None: no orphans kept.
OrphanSource = Callable[[], Mapping[tuple[str, str], tuple[int, int]]]


class _Totals(Protocol):
    ns: str
    uuid: Any

    def shard_totals(self) -> Mapping[str, tuple[int, int, int]]: ...

    def on_growth(self, watch: Callable[[str, int, int], None] | None) -> None: ...


@dataclass(frozen=True)
class Disk:
    size: int
    baseline: int
    unreadable: bool = False  # statfs fails: dbStats answers -1 for both sizes


@dataclass(frozen=True)
class Storage:
    compression: float = DEFAULT_COMPRESSION
    index_bytes_per_document: float = DEFAULT_INDEX_BYTES_PER_DOCUMENT


class Volumes:
    def __init__(self) -> None:
        self.disks: dict[str, Disk] = {}
        self.storage: dict[str, Storage] = {}
        # (shard, ns) -> [bytes, documents]: the most the shard ever held of the collection
        self._marks: dict[tuple[str, str], list[int]] = {}
        self._uuids: dict[str, bytes] = {}  # ns -> the uuid its marks belong to
        self.orphans: OrphanSource | None = None

    # ----------------------------------------------------------------- settings
    def disk(self, shard: str) -> Disk:
        return self.disks.get(shard, Disk(DEFAULT_DISK_SIZE, DEFAULT_BASELINE))

    def storage_of(self, ns: str) -> Storage:
        return self.storage.get(ns, Storage())

    # ------------------------------------------------------------------ marks
    def track(self, store: _Totals) -> None:
        """Follow a chunk store's growth. A new uuid for a namespace (resharding, a moved
        collection rewritten) is a new collection: the old one's files are dropped."""
        key = bytes(store.uuid) if store.uuid is not None else b""
        if self._uuids.get(store.ns, key) != key:
            self.forget(store.ns)
        self._uuids[store.ns] = key
        ns = store.ns

        def grew(shard: str, nbytes: int, docs: int) -> None:
            self.observe(shard, ns, nbytes, docs)

        store.on_growth(grew)

    def observe(self, shard: str, ns: str, nbytes: int, docs: int) -> None:
        """The shard holds `nbytes` / `docs` of `ns` now: raise the marks if above them."""
        mark = self._marks.setdefault((shard, ns), [0, 0])
        mark[0] = max(mark[0], nbytes)
        mark[1] = max(mark[1], docs)

    def mark(self, shard: str, ns: str) -> tuple[int, int] | None:
        found = self._marks.get((shard, ns))
        return (found[0], found[1]) if found else None

    def marks(self) -> Iterator[tuple[str, str, int, int]]:
        for (shard, ns), (nbytes, docs) in sorted(self._marks.items()):
            yield shard, ns, nbytes, docs

    def forget(self, ns: str) -> None:
        """The collection was dropped: its files are gone from every shard."""
        for key in [k for k in self._marks if k[1] == ns]:
            del self._marks[key]
        self._uuids.pop(ns, None)

    def orphan_bytes(self) -> Mapping[tuple[str, str], tuple[int, int]]:
        return self.orphans() if self.orphans is not None else {}

    # ------------------------------------------------------------ persistence
    def state(self) -> dict[str, Any]:
        return {
            "disks": {s: [d.size, d.baseline, d.unreadable] for s, d in self.disks.items()},
            "storage": {
                ns: [s.compression, s.index_bytes_per_document] for ns, s in self.storage.items()
            },
            "marks": [[s, ns, b, d] for s, ns, b, d in self.marks()],
            "uuids": {ns: u for ns, u in self._uuids.items()},
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        self.disks = {
            s: Disk(int(v[0]), int(v[1]), bool(v[2]) if len(v) > 2 else False)
            for s, v in state.get("disks", {}).items()
        }
        self.storage = {
            ns: Storage(float(v[0]), float(v[1])) for ns, v in state.get("storage", {}).items()
        }
        self._marks = {(str(s), str(ns)): [int(b), int(d)] for s, ns, b, d in state["marks"]}
        self._uuids = {str(ns): bytes(u) for ns, u in state.get("uuids", {}).items()}
