"""What each shard's files and volume hold, from the volume model (volumes.py) over the cluster:
per (shard, collection) the logical and stored sizes dbStats and collStats answer, and each
shard's filesystem figures (`fsUsedSize` = baseline + every collection's data and index files).

What a shard holds of a collection: its owned chunks (the chunk store's per-shard totals), an
unsharded collection on its home shard, and orphans when an orphan model is plugged into
`cluster.volumes.orphans` (migrations delete their range at commit today, so none are kept).
"""

from __future__ import annotations

from dataclasses import dataclass

from zonectl.sandbox.catalog import unsharded
from zonectl.sandbox.catalog.cluster import Cluster
from zonectl.sandbox.catalog.volumes import index_count

# Metadata the config server keeps: no shard holds these databases' collections' files.
_NOT_ON_SHARDS = frozenset({"config", "admin", "local"})


@dataclass(frozen=True)
class Files:
    """One collection on one shard: logical figures now, and its files' sizes."""

    ns: str
    size: int  # logical bytes held (dataSize / collStats size)
    count: int
    storage_size: int  # the data file's size (allocated, free blocks included)
    free_storage_size: int  # of it, reusable by later writes of this collection
    index_size: int  # the index files' size
    index_free_size: int
    nindexes: int

    @property
    def total_size(self) -> int:
        return self.storage_size + self.index_size


def held(cluster: Cluster) -> dict[tuple[str, str], tuple[int, int]]:
    """(shard, ns) -> (bytes, documents) each shard holds now, and the marks raised to it."""
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for store in cluster.stores():
        for shard, (_, nbytes, docs) in store.shard_totals().items():
            out[(shard, store.ns)] = (nbytes, docs)
    for key, (nbytes, docs) in _looked_at(cluster).items():
        have = out.get(key, (0, 0))
        out[key] = (have[0] + nbytes, have[1] + docs)
    volumes = cluster.volumes
    for (shard, ns), (nbytes, docs) in out.items():
        volumes.observe(shard, ns, nbytes, docs)
    _forget_dropped(cluster)
    return out


def _looked_at(cluster: Cluster) -> dict[tuple[str, str], tuple[int, int]]:
    """What no chunk store reports: each unsharded collection on its home shard, and the
    orphans (added to what the shard owns)."""
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for ns in cluster.catalog.namespaces():
        db = ns.split(".", 1)[0]
        if db in _NOT_ON_SHARDS or cluster.chunks(ns) is not None or ".system." in ns:
            continue
        if unsharded.kind_of(cluster, ns) == "view":
            continue
        home = unsharded.home_shard(cluster, ns)
        if home is not None:
            out[(home, ns)] = unsharded.size_of(cluster, ns)
    for key, (nbytes, docs) in cluster.volumes.orphan_bytes().items():
        have = out.get(key, (0, 0))
        out[key] = (have[0] + nbytes, have[1] + docs)
    return out


def _forget_dropped(cluster: Cluster) -> None:
    volumes = cluster.volumes
    stores = cluster.store_map()
    for ns in [ns for ns in volumes.marked() if ns not in stores]:
        if cluster.catalog.get(ns) is None:
            volumes.forget(ns)  # dropped: its files went with it


def refresh(cluster: Cluster) -> None:
    """Bring the volumes' running totals (volume_totals.py) to what `files` would find, with
    the same marks raised and forgotten, without walking every collection: the chunk stores
    report their changes; what they do not (`_looked_at`) and the index counts of
    collections without a store are read here."""
    volumes = cluster.volumes
    stores = cluster.store_map()
    volumes.sync(stores)
    volumes.poll(_looked_at(cluster))
    _forget_dropped(cluster)
    # A sharded collection's key changes only with a new store (refineCollectionShardKey,
    # resharding), which is read again; a collection without one is read every time.
    wanted = volumes.unindexed() | {ns for ns in volumes.marked() if ns not in stores}
    for ns in wanted:
        volumes.set_indexes(ns, _nindexes(cluster, ns))


def files(cluster: Cluster) -> list[tuple[str, Files]]:
    """(shard, files) of every collection with files on a shard, by shard then namespace."""
    now = held(cluster)
    out = []
    for shard, ns, mark_bytes, mark_docs in cluster.volumes.marks():
        nbytes, docs = now.get((shard, ns), (0, 0))
        storage = cluster.volumes.storage_of(ns)
        stored = round(mark_bytes * storage.compression)
        live = round(nbytes * storage.compression)
        index = round(mark_docs * storage.index_bytes_per_document)
        index_live = round(docs * storage.index_bytes_per_document)
        out.append(
            (
                shard,
                Files(ns, nbytes, docs, stored, stored - live, index, index - index_live,
                      _nindexes(cluster, ns)),
            )
        )  # fmt: skip
    return out


def fs_used(
    cluster: Cluster, every: list[tuple[str, Files]] | None = None
) -> dict[str, tuple[int, int]]:
    """shard -> (fsUsedSize, fsTotalSize): the baseline plus every file on the volume
    (`every`: `files(cluster)` when the caller has it already)."""
    used = {name: cluster.volumes.disk(name).baseline for name in cluster.shard_names()}
    for shard, f in files(cluster) if every is None else every:
        used[shard] = used.get(shard, cluster.volumes.disk(shard).baseline) + f.total_size
    return {s: (u, cluster.volumes.disk(s).size) for s, u in used.items()}


def _nindexes(cluster: Cluster, ns: str) -> int:
    return index_count(cluster.key_pattern(ns))
