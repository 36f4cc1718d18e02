"""refineCollectionShardKey's metadata rewrite: the collection entry, its chunks, its zones.

What the config server does (mongo:jstests/sharding/refine_collection_shard_key_basic.js,
validateConfigCollections / validateConfigChunksAfterRefine / validateConfigTagsAfterRefine):
- config.collections: the new `key`, a new `lastmodEpoch` (and timestamp); the UUID stays;
- config.chunks and config.tags: every bound gains the new suffix fields as MinKey, except a
  bound equal to the old global max, which gains MaxKey (so the last chunk still ends at the
  new global max); chunks keep their shards;
- the jumbo flags are cleared: the refined key gives a jumbo chunk split points again
  (mongo:jstests/sharding/refine_collection_shard_key_jumbo.js; the refine path of
  sharding_catalog_manager_collection_operations.cpp unsets `jumbo` in the same update).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bson import ObjectId
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.catalog.chunks import ChunkStore
from zonectl.sandbox.catalog.cluster import COLLECTIONS, TAGS, Cluster


def extend_bound(bound: Mapping[str, Any], new_key: Mapping[str, Any]) -> dict[str, Any]:
    """The bound in the refined key: MaxKey suffix after the old global max, else MinKey."""
    at_max = bool(bound) and all(isinstance(v, MaxKey) for v in bound.values())
    fill: Any = MaxKey() if at_max else MinKey()
    return {field: bound.get(field, fill) for field in new_key}


def refine(cluster: Cluster, ns: str, new_key: Mapping[str, Any]) -> None:
    """Rewrite `ns`'s metadata for `new_key` (already validated as a suffix extension)."""
    old = cluster.chunks(ns)
    doc = cluster.collection_doc(ns)
    assert old is not None and doc is not None
    now = cluster.now()
    epoch = ObjectId()
    updated = {
        **doc,
        "key": dict(new_key),
        "lastmodEpoch": epoch,
        "lastmod": now.replace(microsecond=now.microsecond // 1000 * 1000),
        "timestamp": cluster.now_ts(),
    }
    cluster.coll(COLLECTIONS).put(updated)
    chunks = list(old)
    bounds = [extend_bound(c.min, new_key) for c in chunks]
    bounds.append(extend_bound(chunks[-1].max, new_key))
    store = ChunkStore(ns, old.uuid, epoch, old.form)
    sizes, counts = old.sizes()
    store.load(bounds, [c.shard for c in chunks], updated["timestamp"], sizes, counts)
    cluster.attach_store(store)
    tags = cluster.coll(TAGS)
    for zr in cluster.zone_ranges(ns):
        entry = tags.get(zr.id)
        if entry is not None:
            lo, hi = extend_bound(zr.min, new_key), extend_bound(zr.max, new_key)
            tags.put({**entry, "min": lo, "max": hi})
    cluster.log_change("refineCollectionShardKey.end", ns, {"key": dict(new_key)})
