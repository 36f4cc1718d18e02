"""collStats through a mongos: size and count of a collection, where an unsharded one lives,
and its files' sizes from the volume model (catalog/volume_stats.py).

A mongos answers `sharded: false` and the `primary` shard for an unsharded collection, with
the owning shard's figures under `shards` (mongo:src/mongo/s/commands/
cluster_coll_stats_cmd.cpp; deprecated since 6.2, present in 8.0). It sums `size`, `count`,
`storageSize`, `totalIndexSize` and `totalSize` over the shards; each shard's own reply under
`shards` also carries its `freeStorageSize` (space WiredTiger reuses for later writes of the
collection, 4.4+), which the mongos does not sum. Sizes are the sandbox's nominal ones
(cluster file `unsharded:` entries, else per document), stored at the collection's compression.
"""

from __future__ import annotations

from typing import Any

from zonectl.sandbox.catalog import unsharded, volume_stats
from zonectl.sandbox.commands.nsutil import namespace_of
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError


@command("collStats", aliases=("collstats",))
def coll_stats(request: Request) -> dict[str, Any]:
    ns = namespace_of(request)
    cluster = request.sandbox.cluster
    meta = unsharded.meta_of(cluster, ns)
    if meta is None:
        raise CommandError.of("NamespaceNotFound", f"Collection [{ns}] not found.")
    size, count = unsharded.size_of(cluster, ns)
    capped = bool(meta.get("options", {}).get("capped"))
    store = cluster.chunks(ns)
    files = {shard: f for shard, f in volume_stats.files(cluster) if f.ns == ns}
    stored = {
        "storageSize": sum(f.storage_size for f in files.values()),
        "totalIndexSize": sum(f.index_size for f in files.values()),
        "totalSize": sum(f.total_size for f in files.values()),
    }
    nindexes = max((f.nindexes for f in files.values()), default=1)
    figures = {"ns": ns, "size": size, "count": count, "storageSize": stored["storageSize"],
               "capped": capped, "nindexes": nindexes,
               "totalIndexSize": stored["totalIndexSize"]}  # fmt: skip
    if store is not None and not unsharded.is_unsplittable(cluster, ns):
        sizes, counts = store.sizes()
        shards: dict[str, Any] = {}
        for i, chunk_size in enumerate(sizes):
            entry = shards.setdefault(store.shard_at(i), {"ns": ns, "size": 0, "count": 0})
            entry["size"] += chunk_size
            entry["count"] += counts[i]
        for shard, f in files.items():  # a shard that held chunks keeps its files
            entry = shards.setdefault(shard, {"ns": ns, "size": 0, "count": 0})
            entry.update(_storage(f))
        total = sum(sizes)
        return {**figures, "sharded": True, "size": total, "count": sum(counts),
                "totalSize": stored["totalSize"], "nchunks": len(store),
                "shards": shards}  # fmt: skip
    home = unsharded.home_shard(cluster, ns) or ""
    own = {**figures, **(_storage(files[home]) if home in files else {})}
    return {**figures, "totalSize": stored["totalSize"], "sharded": False, "primary": home,
            "shards": {home: own}}  # fmt: skip


def _storage(f: volume_stats.Files) -> dict[str, Any]:
    return {
        "storageSize": f.storage_size,
        "freeStorageSize": f.free_storage_size,
        "nindexes": f.nindexes,
        "totalIndexSize": f.index_size,
        "totalSize": f.total_size,
    }
