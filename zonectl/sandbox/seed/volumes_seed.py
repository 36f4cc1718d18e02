"""Give a seeded cluster the cluster file's volumes and storage figures (volume_spec.py): each
shard's disk, each collection's compression and index size per document. Shards and
collections the file gives none keep catalog/volumes.py's defaults."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zonectl.sandbox.catalog.volumes import DEFAULT_COMPRESSION, Disk, Storage
from zonectl.sandbox.catalog.volumes import DEFAULT_INDEX_BYTES_PER_DOCUMENT as INDEX

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.cluster import Cluster
    from zonectl.sandbox.seed.schema import ClusterFile


def configure(cluster: Cluster, spec: ClusterFile) -> None:
    volumes = cluster.volumes
    for shard in spec.shards:
        if shard.disk is not None:
            volumes.disks[shard.name] = Disk(shard.disk.size_bytes, shard.disk.baseline_bytes)
    for coll in [*spec.collections, *spec.unsharded]:
        if coll.compression is not None or coll.indexBytesPerDocument is not None:
            volumes.storage[coll.ns] = Storage(
                coll.compression if coll.compression is not None else DEFAULT_COMPRESSION,
                coll.indexBytesPerDocument if coll.indexBytesPerDocument is not None else INDEX,
            )
