"""collStats through a mongos: size and count of a collection, and where an unsharded one lives.

A mongos answers `sharded: false` and the `primary` shard for an unsharded collection, with
the owning shard's figures under `shards` (mongo:src/mongo/s/commands/
cluster_coll_stats_cmd.cpp, inferred from its output; deprecated since 6.2, present in 8.0).
Sizes are the sandbox's nominal ones (cluster file `unsharded:` entries, else per document).
"""

from __future__ import annotations

from typing import Any

from zonectl.sandbox.catalog import unsharded
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
    figures = {"ns": ns, "size": size, "count": count, "storageSize": size, "capped": capped,
               "nindexes": 1, "totalIndexSize": 0}  # fmt: skip
    if store is not None and not unsharded.is_unsplittable(cluster, ns):
        sizes, counts = store.sizes()
        shards: dict[str, Any] = {}
        for i, chunk_size in enumerate(sizes):
            entry = shards.setdefault(store.shard_at(i), {"ns": ns, "size": 0, "count": 0})
            entry["size"] += chunk_size
            entry["count"] += counts[i]
        total = sum(sizes)
        return {**figures, "sharded": True, "size": total, "count": sum(counts),
                "nchunks": len(store), "shards": shards}  # fmt: skip
    home = unsharded.home_shard(cluster, ns) or ""
    return {**figures, "sharded": False, "primary": home, "shards": {home: dict(figures)}}
