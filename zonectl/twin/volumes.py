"""A twin's volumes: each shard's `disk: {size, baseline}` and each collection's storage figures
for the cluster file, from what dbStats gave (zonectl/mongo/volumes_read.py). The baseline is
the shard's fsUsedSize less what the twin's own data takes there, computed as the sandbox
computes a file's size (zonectl/sandbox/catalog/volume_stats.py: per shard and collection,
round(bytes x compression) + round(documents x index bytes per document)), so the served twin
reports the volume the cluster had. Space the cluster keeps free inside its files counts in
the baseline: the twin's files start without free space."""

from __future__ import annotations

from typing import Any

from zonectl.twin.capture import Capture

# When dbStats gave no figures for a database (no data in it): the sandbox's own defaults,
# written out so the twin does not depend on them.
ASSUMED = (0.5, 64.0)


def storage_of(capture: Capture, ns: str) -> tuple[float, float]:
    return capture.storage.get(ns.split(".", 1)[0], ASSUMED)


def collection_fields(capture: Capture, ns: str) -> dict[str, Any]:
    """The collection's `compression` and `indexBytesPerDocument` (none without volumes)."""
    if not capture.volumes:
        return {}
    compression, index = storage_of(capture, ns)
    return {"compression": compression, "indexBytesPerDocument": index}


def disk(capture: Capture, shard: str) -> dict[str, Any]:
    """`{disk: {size, baseline}}` of the shard, or nothing when its volume was not read."""
    fs = capture.volumes.get(shard)
    if fs is None:
        return {}
    used, total = fs
    data = 0
    for (holder, ns), (nbytes, docs) in capture.held.items():
        if holder == shard:
            compression, index = storage_of(capture, ns)
            data += round(nbytes * compression) + round(docs * index)
    return {"disk": {"size": total, "baseline": min(max(used - data, 0), total)}}
