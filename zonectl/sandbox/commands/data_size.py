"""dataSize on a mongos: the bytes and documents of a shard-key range of a sharded
collection, summed over the shards (mongo:src/mongo/s/commands/cluster_data_size_cmd.cpp:
`scatterGatherVersionedTargetByRoutingTable`, then `size`, `numObjects` and `millis` added
up; each shard answers CmdDatasize over its index range). zonectl reads it per chunk to
know how many bytes a migration copies (config.chunks carries no sizes).

The sandbox holds chunk sizes, not documents: a chunk wholly inside [min, max) counts in
full; a chunk only partly inside counts half (a simulation limit, not MongoDB behaviour;
zonectl only asks for whole chunks). A namespace that is not sharded answers zeros, as an empty or
missing collection does on a shard.
"""

from __future__ import annotations

from typing import Any

from zonectl.sandbox.commands import move_rules
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.keyorder import compare


@command("dataSize", aliases=("datasize",), supports_write_concern=False)
def data_size(request: Request) -> dict[str, Any]:
    ns = move_rules.fully_qualified_namespace(request)
    cluster = request.sandbox.cluster
    store = cluster.chunks(ns)
    body = request.body
    if store is None:
        return {"size": 0, "numObjects": 0, "millis": 0}
    key = move_rules.key_pattern(cluster, ns)
    lo = move_rules.normalize(body["min"], key) if body.get("min") else None
    hi = move_rules.normalize(body["max"], key) if body.get("max") else None
    size = count = 0
    i = store.find(lo) if lo is not None else 0  # the chunk holding `min`, by bisection
    while i < len(store):
        cmin, cmax = store.min_at(i), store.max_at(i)
        if hi is not None and compare(hi, cmin) <= 0:
            break
        inside = (lo is None or compare(lo, cmin) <= 0) and (hi is None or compare(cmax, hi) <= 0)
        share = 1.0 if inside else 0.5
        size += int(store.size_at(i) * share)
        count += int(store.count_at(i) * share)
        i += 1
    return {"size": size, "numObjects": count, "millis": 0}
