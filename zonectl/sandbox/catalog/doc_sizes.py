"""Documents a client writes to a sharded collection count in the chunk that owns them.

A real shard's chunk holds the documents whose shard-key value falls in [min, max), so a
client's inserts grow `dataSize` and what a migration clones (`moveChunk.commit`'s
`counts.clonedBytes`), and its deletes shrink them. The sandbox's chunks otherwise carry
nominal counts and sizes from the cluster file (chunks.py); this adds each written
document's BSON size and count to the chunk its key falls in, and takes them off again on
delete. A document without a shard-key field counts at null there (MongoDB 4.4+ treats a
missing field as null for targeting). Not counted: hashed shard keys (the sandbox does not
reimplement MongoDB's hash), updates that grow or shrink a document, and the split of a
chunk, which shares its size by key position as before rather than by the documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import bson

from zonectl.sandbox.codec import CODEC

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.cluster import Cluster


def count(cluster: Cluster, ns: str, doc: Mapping[str, Any], sign: int) -> None:
    """Add (`sign` 1) or remove (-1) one document of `ns` in the chunk owning its key."""
    store, key = cluster.chunks(ns), cluster.key_pattern(ns)
    if store is None or key is None or "hashed" in key.values() or len(store) == 0:
        return
    value = {field: _field(doc, field) for field in key}
    i = store.find(value)
    size = len(bson.encode(doc, codec_options=CODEC))
    store.set_size(i, max(0, store.size_at(i) + sign * size), max(0, store.count_at(i) + sign))


def _field(doc: Mapping[str, Any], path: str) -> Any:
    value: Any = doc
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value
