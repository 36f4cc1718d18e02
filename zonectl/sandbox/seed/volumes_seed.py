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
            disk = shard.disk
            volumes.disks[shard.name] = Disk(disk.size_bytes, disk.baseline_bytes, disk.unreadable)
    figures = [(c.ns, c.compression, c.indexBytesPerDocument) for c in spec.collections]
    figures += [(u.ns, u.compression, u.indexBytesPerDocument) for u in spec.unsharded]
    for ns, compression, index in figures:
        if compression is not None or index is not None:
            volumes.set_storage(
                ns,
                Storage(
                    compression if compression is not None else DEFAULT_COMPRESSION,
                    index if index is not None else INDEX,
                ),
            )
