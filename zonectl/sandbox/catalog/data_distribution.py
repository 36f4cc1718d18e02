"""`$shardedDataDistribution` (6.0.3+): owned documents and bytes per shard, per sharded
collection. mongosh's `sh.status()` and `sh.getShardedDataDistribution()` run it.

As mongo:src/mongo/db/pipeline/document_source_sharded_data_distribution.cpp builds it:
  * the spec must be an empty object (6789100), run on mongos, and only as
    `{aggregate: 1}` on the admin database (6789102);
  * per shard, `$_internalAllCollectionStats` gives `count`, `numOrphanDocs` and
    `avgObjSize`; then `numOwnedDocuments = count - numOrphanDocs`,
    `ownedSizeBytes = avgObjSize * numOwnedDocuments`,
    `orphanedSizeBytes = avgObjSize * numOrphanDocs`;
  * only namespaces present in config.collections (and not `unsplittable`) are kept, as
    `{ns, shards: [{shardName, numOrphanedDocs, numOwnedDocuments, ownedSizeBytes,
    orphanedSizeBytes}]}`.
Only shards that own chunks (or orphan ranges) appear (jstests/sharding/
sharded_data_distribution.js). The sandbox's chunk stores carry each chunk's simulated size
and document count; migrations delete their range at commit, so there are no orphans.
`avgObjSize` is an integer in collStats' storageStats, hence the floor division.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zonectl.sandbox.errors import CommandError

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.cluster import Cluster
    from zonectl.sandbox.versions import VersionProfile

STAGE = "$shardedDataDistribution"
FIRST_VERSION = (6, 0, 3)  # "New in version 6.0.3" (the manual; MONGOSH-1303 backport note)


def supported(version: VersionProfile) -> bool:
    return tuple(version.version_array[:3]) >= FIRST_VERSION


def validate(spec: Any, db: str, collectionless: bool) -> None:
    if not isinstance(spec, Mapping) or spec:
        raise CommandError.assertion(
            6789100, "The $shardedDataDistribution stage specification must be an empty object"
        )
    if db != "admin" or not collectionless:
        raise CommandError.assertion(
            6789102, "The $shardedDataDistribution stage must be run on the admin database"
        )


def documents(cluster: Cluster) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for store in cluster.stores():
        doc = cluster.collection_doc(store.ns)
        if doc is None or doc.get("unsplittable") is True:
            continue
        owned = {shard: (size, count) for shard, (_, size, count) in store.shard_totals().items()}
        shards = []
        for shard in sorted(owned):
            size, count = owned[shard]
            avg = size // count if count else 0
            shards.append(
                {
                    "shardName": shard,
                    "numOrphanedDocs": 0,
                    "numOwnedDocuments": count,
                    "ownedSizeBytes": avg * count,
                    "orphanedSizeBytes": 0,
                }
            )
        out.append({"ns": store.ns, "shards": shards})
    return out
