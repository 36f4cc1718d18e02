"""Keys that cannot spread, and the key to move to: a GridFS chunks collection on its
ascending default key (ZA132) and a key with fewer distinct values than shards (ZA133).
Sources: the manual, "Shard GridFS Data Store" (files_id is an ObjectId by default, so
every upload lands on one shard) and "Shard Key Cardinality" (a chunk never splits
between equal key values, so k values fill at most k chunks)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bson import ObjectId

from zonectl.analyze.inputs import CollectionInput
from zonectl.analyze.report import Finding, Severity
from zonectl.analyze.rules_workload import key_text
from zonectl.model.keys import format_value, is_max_key, is_min_key

GRIDFS_KEYS = ({"files_id": 1, "n": 1}, {"files_id": 1})  # the manual's two chunks keys


def is_gridfs_chunks(coll: CollectionInput) -> bool:
    name = coll.namespace.split(".", 1)[1] if "." in coll.namespace else ""
    return name.endswith(".chunks") and dict(coll.key or {}) in GRIDFS_KEYS


def gridfs_rule(coll: CollectionInput) -> list[Finding]:
    """ZA132: `<bucket>.chunks` on {files_id: 1, n: 1} (or {files_id: 1}) with ObjectId
    files_id values: ascending, so every upload goes to the top chunk's shard."""
    if coll.kind != "sharded" or not is_gridfs_chunks(coll):
        return []
    seen = [
        b.get("files_id")
        for c in coll.chunks
        for b in (c.min, c.max)
        if not (is_min_key(b.get("files_id")) or is_max_key(b.get("files_id")))
    ]
    m = coll.metrics
    monotonic = m is not None and m.monotonicity == "monotonic"
    if seen and not all(isinstance(v, ObjectId) for v in seen):
        return []  # the application sets files_id to something else: no ObjectId stream
    if seen:
        why = "its chunk bounds hold ObjectId files_id values, which ascend"
    elif monotonic:
        why = "analyzeShardKey finds the key monotonic"
    else:
        why = "drivers write ObjectId files_id values by default, which ascend"
    top = coll.chunks[-1].shard if coll.chunks else None
    where = f": every upload lands in the top chunk, on {top}" if top else ""
    severity = Severity.WARNING if seen or monotonic else Severity.INFO
    return [
        Finding(
            "ZA132",
            "gridfs-chunks-ascending-files-id",
            severity,
            coll.namespace,
            f"GridFS chunks collection {coll.namespace} is keyed {key_text(coll.key or {})} "
            f"and {why}{where}",
            'Use the key {files_id: "hashed"} (a file\'s chunks stay together, new files '
            'spread over the shards): that needs a resharding (`key: {files_id: "hashed"}` '
            "with `reshard: true` in the policy, 5.0+), or a new bucket sharded that way for "
            "new files.",
            "analyzeShardKey" if monotonic and not seen else "config metadata",
        )
    ]


def cardinality_rule(
    coll: CollectionInput, shards: Sequence[str], holding: Mapping[str, bool]
) -> list[Finding]:
    """ZA133: the key has fewer distinct values than there are shards (analyzeShardKey's
    numDistinctValues): at most that many chunks can hold data, so some shards never do.
    `holding`: shard -> whether it holds data of the collection now."""
    m = coll.metrics
    if m is None or m.unique or m.distinct < 1 or len(shards) < 2 or m.distinct >= len(shards):
        return []
    key = dict(m.key)
    empty = len(shards) - m.distinct
    idle = [s for s in shards if not holding.get(s, False)]
    now = f" ({', '.join(idle)} {'holds' if len(idle) == 1 else 'hold'} none now)" if idle else ""
    sample = "" if m.sampled >= m.num_docs else f" in {m.sampled:,} sampled documents"
    evidence = (
        f"{m.distinct} distinct value(s) of {key_text(key)}{sample}: at most {m.distinct} "
        f"chunk(s) can ever hold data, and {empty} of {len(shards)} shards "
        f"{'gets' if empty == 1 else 'get'} nothing{now}"
    )
    refined = _refined(key)
    db, name = coll.namespace.split(".", 1)
    index = f'db.getSiblingDB("{db}").getCollection("{name}").createIndex({format_value(refined)})'
    refine = (
        f'db.adminCommand({{refineCollectionShardKey: "{coll.namespace}", '
        f"key: {format_value(refined)}}})"
    )
    return [
        Finding(
            "ZA133",
            "key-cardinality-below-shards",
            Severity.WARNING,
            coll.namespace,
            evidence,
            f"Refine the key to {key_text(refined)} (same first field, so no data moves): "
            f"build the index {index}, then write `key: {key_text(refined)}` in the policy "
            f"for `zonectl apply`, or run {refine}.",
            "analyzeShardKey",
        )
    ]


def _refined(key: Mapping[str, Any]) -> dict[str, Any]:
    """The live key with a unique suffix: `_id` (every document has one)."""
    return {**key, "_id": 1} if "_id" not in key else {**key}


def holding_shards(coll: CollectionInput, shards: Sequence[str]) -> dict[str, bool]:
    """shard -> holds data of the collection: owned documents by $shardedDataDistribution,
    else a chunk with a size above zero (or of unknown size)."""
    if coll.distribution:
        return {s: coll.distribution.get(s, (0, 0))[0] > 0 for s in shards}
    out = dict.fromkeys(shards, False)
    for c in coll.chunks:
        if c.bytes is None or c.bytes > 0:
            out[c.shard] = True
    return out
