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

For dbStats the volumes also keep running totals (volume_totals.py): what each followed chunk
store holds per shard (it reports every change), what was looked at when a figure was last
read (`poll`: unsharded collections, orphans), each collection's index count, and from them
and the marks each file's figures, summed per (shard, database) and per shard.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from zonectl.sandbox.catalog.volume_totals import FileTotals, part_of

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

    def on_change(self, follow: Callable[[str, int, int, int], None] | None) -> None: ...


@dataclass(frozen=True)
class Disk:
    size: int
    baseline: int
    unreadable: bool = False  # statfs fails: dbStats answers -1 for both sizes


@dataclass(frozen=True)
class Storage:
    compression: float = DEFAULT_COMPRESSION
    index_bytes_per_document: float = DEFAULT_INDEX_BYTES_PER_DOCUMENT


def index_count(key: Mapping[str, Any] | None) -> int:
    """The _id index, and the shard key's unless the key is {_id: 1} (None: unsharded)."""
    return 1 if key is None or dict(key) == {"_id": 1} else 2


class Volumes:
    def __init__(self) -> None:
        self.disks: dict[str, Disk] = {}
        self._storage: dict[str, Storage] = {}
        # (shard, ns) -> [bytes, documents]: the most the shard ever held of the collection
        self._marks: dict[tuple[str, str], list[int]] = {}
        self._uuids: dict[str, bytes] = {}  # ns -> the uuid its marks belong to
        self.orphans: OrphanSource | None = None
        # The running totals' inputs besides the marks and storage settings:
        self._marked: dict[str, set[str]] = {}  # ns -> the shards with a mark of it
        self._stores: dict[str, _Totals] = {}  # ns -> the chunk store followed
        self._held: dict[tuple[str, str], tuple[int, int]] = {}  # a followed store holds now
        self._held_on: dict[str, set[str]] = {}  # ns -> the shards in `_held`
        self._unmarked: set[tuple[str, str]] = set()  # in `_held`, no mark yet
        self._polled: dict[tuple[str, str], tuple[int, int]] = {}  # looked at on the last read
        self._indexes: dict[str, int] = {}  # ns -> its index count
        self._unindexed: set[str] = set()  # namespaces whose index count is to be read
        self.totals = FileTotals()

    # ----------------------------------------------------------------- settings
    def disk(self, shard: str) -> Disk:
        return self.disks.get(shard, Disk(DEFAULT_DISK_SIZE, DEFAULT_BASELINE))

    @property
    def storage(self) -> Mapping[str, Storage]:
        return MappingProxyType(self._storage)

    def set_storage(self, ns: str, storage: Storage) -> None:
        self._storage[ns] = storage
        self._refresh_ns(ns)

    def storage_of(self, ns: str) -> Storage:
        return self._storage.get(ns, Storage())

    # ------------------------------------------------------------------ marks
    def track(self, store: _Totals, shard_key: Mapping[str, Any] | None = None) -> None:
        """Follow a chunk store's growth. A new uuid for a namespace (resharding, a moved
        collection rewritten) is a new collection: the old one's files are dropped. `shard_key`:
        the collection's shard key when known (its index count), else read later."""
        key = bytes(store.uuid) if store.uuid is not None else b""
        if self._uuids.get(store.ns, key) != key:
            self.forget(store.ns)
        self._uuids[store.ns] = key
        ns = store.ns

        def grew(shard: str, nbytes: int, docs: int) -> None:
            self.observe(shard, ns, nbytes, docs)

        if shard_key is not None:
            self.set_indexes(ns, index_count(shard_key))
        # What it holds first, then the marks it raises: each file's figures once.
        self._follow(store, indexed=shard_key is not None)
        store.on_growth(grew)

    def observe(self, shard: str, ns: str, nbytes: int, docs: int) -> None:
        """The shard holds `nbytes` / `docs` of `ns` now: raise the marks if above them."""
        key = (shard, ns)
        mark = self._marks.get(key)
        if mark is None:
            mark = self._marks[key] = [0, 0]
            self._marked.setdefault(ns, set()).add(shard)
            self._unmarked.discard(key)
            if ns not in self._indexes:
                self._unindexed.add(ns)
        elif nbytes <= mark[0] and docs <= mark[1]:
            return
        mark[0] = max(mark[0], nbytes)
        mark[1] = max(mark[1], docs)
        self._refresh(shard, ns)

    def mark(self, shard: str, ns: str) -> tuple[int, int] | None:
        found = self._marks.get((shard, ns))
        return (found[0], found[1]) if found else None

    def marks(self) -> Iterator[tuple[str, str, int, int]]:
        for (shard, ns), (nbytes, docs) in sorted(self._marks.items()):
            yield shard, ns, nbytes, docs

    def forget(self, ns: str) -> None:
        """The collection was dropped: its files are gone from every shard."""
        for shard in self._marked.pop(ns, ()):
            del self._marks[(shard, ns)]
            self._refresh(shard, ns)
        self._unmarked.update((shard, ns) for shard in self._held_on.get(ns, ()))
        self._uuids.pop(ns, None)

    def orphan_bytes(self) -> Mapping[tuple[str, str], tuple[int, int]]:
        return self.orphans() if self.orphans is not None else {}

    # --------------------------------------------------------- running totals
    def _follow(self, store: _Totals, *, indexed: bool = False) -> None:
        """Keep what `store` holds per shard, from every change it reports. Unless
        `indexed`, its index count is read when a figure is (volume_stats.refresh)."""
        ns = store.ns
        self.unfollow(ns)
        self._stores[ns] = store
        if indexed:
            self._unindexed.discard(ns)
        else:
            self._unindexed.add(ns)

        def changed(shard: str, chunks: int, nbytes: int, docs: int) -> None:
            if self._stores.get(ns) is not store:
                return  # a store since dropped or replaced
            key = (shard, ns)
            if chunks:  # held() counts the shards owning chunks
                self._held[key] = (nbytes, docs)
                self._held_on.setdefault(ns, set()).add(shard)
                if key not in self._marks:
                    self._unmarked.add(key)
            else:
                self._held.pop(key, None)
                self._held_on.get(ns, set()).discard(shard)
                self._unmarked.discard(key)
            if key in self._marks:  # else no file there yet: nothing in the totals
                self._refresh(shard, ns)

        store.on_change(changed)

    def sync(self, stores: Mapping[str, _Totals]) -> None:
        """Follow exactly the cluster's chunk stores (`stores`: ns -> its store)."""
        for ns, store in stores.items():
            if self._stores.get(ns) is not store:
                self._follow(store)
        for ns in self._stores.keys() - stores.keys():
            self.unfollow(ns)

    def unfollow(self, ns: str) -> None:
        self._stores.pop(ns, None)
        for shard in self._held_on.pop(ns, ()):
            del self._held[(shard, ns)]
            self._unmarked.discard((shard, ns))
            self._refresh(shard, ns)

    def poll(self, polled: Mapping[tuple[str, str], tuple[int, int]]) -> None:
        """What was looked at for this read (held on top of the followed stores' figures):
        raise the marks to it, and to what followed stores hold where no mark is yet."""
        before, self._polled = self._polled, dict(polled)
        for (shard, ns), (nbytes, docs) in self._polled.items():
            held = self._held.get((shard, ns), (0, 0))
            self.observe(shard, ns, held[0] + nbytes, held[1] + docs)
        for shard, ns in list(self._unmarked):
            self.observe(shard, ns, *self._held[(shard, ns)])
        for shard, ns in before.keys() | self._polled.keys():
            if before.get((shard, ns)) != self._polled.get((shard, ns)):
                self._refresh(shard, ns)

    def marked(self) -> Iterable[str]:
        """The namespaces with files on some shard."""
        return self._marked.keys()

    def followed(self) -> Iterable[str]:
        return self._stores.keys()

    def unindexed(self) -> set[str]:
        """The namespaces whose index count is to be read (and forgets them)."""
        found, self._unindexed = self._unindexed, set()
        return found

    def set_indexes(self, ns: str, indexes: int) -> None:
        if self._indexes.get(ns) != indexes:
            self._indexes[ns] = indexes
            self._refresh_ns(ns)

    def _refresh_ns(self, ns: str) -> None:
        for shard in self._marked.get(ns, ()):
            self._refresh(shard, ns)

    def _refresh(self, shard: str, ns: str) -> None:
        """Put the file of `ns` on `shard` in the totals as it stands."""
        key = (shard, ns)
        mark = self._marks.get(key)
        if mark is None:
            self.totals.put(shard, ns, None)
            return
        nbytes, docs = self._held.get(key, (0, 0))
        extra = self._polled.get(key)
        if extra is not None:
            nbytes, docs = nbytes + extra[0], docs + extra[1]
        storage = self._storage.get(ns) or Storage()
        part = part_of(
            (nbytes, docs),
            (mark[0], mark[1]),
            storage.compression,
            storage.index_bytes_per_document,
            self._indexes.get(ns, 1),
        )
        self.totals.put(shard, ns, part)

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
        self._storage = {
            ns: Storage(float(v[0]), float(v[1])) for ns, v in state.get("storage", {}).items()
        }
        self._marks = {(str(s), str(ns)): [int(b), int(d)] for s, ns, b, d in state["marks"]}
        self._uuids = {str(ns): bytes(u) for ns, u in state.get("uuids", {}).items()}
        self._marked = {}
        for shard, ns in self._marks:
            self._marked.setdefault(ns, set()).add(shard)
        self._unmarked = {key for key in self._held if key not in self._marks}
        self._unindexed.update(self._marked)
        self.totals.clear()
        for shard, ns in self._marks:
            self._refresh(shard, ns)
