"""What is still on a draining shard, and the reply removeShard / shardDrainingStatus build.

Counts follow `ShardingCatalogManager::removeShard` (5.0-8.0) and `getDrainingProgress`
(8.3) in mongo:src/mongo/db/s/config/sharding_catalog_manager_shard_operations.cpp; the
reply fields follow `appendShardDrainingStatus` there (5.0-7.0 in
configsvr_remove_shard_command.cpp) and the manual's removeShard page for 8.0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bson import Int64

from zonectl.sandbox.catalog import unsharded
from zonectl.sandbox.catalog.cluster import DATABASES, Cluster

NOTE_BEFORE_8_0 = "you need to drop or movePrimary these databases"
NOTE_8_0 = (
    "you need to call moveCollection for collectionsToMove and afterwards movePrimary for the "
    "dbsToMove"
)
# topology_change_helpers::getRemoveShardMessage (8.0+); the same strings before.
MESSAGES = {
    "started": "draining started successfully",
    "ongoing": "draining ongoing",
    "pendingDataCleanup": "waiting for data to be cleaned up",
    "drainingComplete": "draining completed successfully",
    "completed": "removeshard completed successfully",
}


@dataclass(frozen=True)
class Progress:
    chunks: int  # chunks of sharded collections (8.0+: `removeShardCounts.chunks`)
    total_chunks: int  # every config.chunks entry on the shard, unsplittable included
    jumbo: int
    dbs: list[str]
    collections: list[str]
    remaining_bytes: int

    @property
    def fully_drained(self) -> bool:
        """`isFullyDrained`: no chunk of any tracked collection and no database primary
        (an untracked unsharded collection lives on its database's primary)."""
        return self.total_chunks == 0 and not self.dbs


def progress(cluster: Cluster, shard: str) -> Progress:
    chunks = total = jumbo = 0
    remaining = 0
    for store in cluster.stores():
        tracked_only = unsharded.is_unsplittable(cluster, store.ns)
        sizes, _ = store.sizes()
        for i, size in enumerate(sizes):
            if store.shard_at(i) != shard:
                continue
            total += 1
            remaining += size
            if not tracked_only:
                chunks += 1
                jumbo += int(store.jumbo_at(i))
    colls = collections_to_move(cluster, shard)
    for ns in colls:
        if cluster.chunks(ns) is None:
            remaining += unsharded.size_of(cluster, ns)[0]
    return Progress(chunks, total, jumbo, dbs_to_move(cluster, shard), colls, remaining)


def dbs_to_move(cluster: Cluster, shard: str) -> list[str]:
    """`getDatabasesForShard` less `local`: databases whose primary is the shard."""
    names = (d["_id"] for d in cluster.coll(DATABASES) if d.get("primary") == shard)
    return sorted(n for n in names if n != "local")


def collections_to_move(cluster: Cluster, shard: str) -> list[str]:
    """`makeUnshardedCollectionsOnSpecificShardAggregation` (8.0.13+/8.1, SERVER-101043):
    unsharded collections on the shard, not in admin or config, no view, no system
    collection; a time-series collection is listed once, by its own name (the pipeline
    keeps its system.buckets collection and renames it)."""
    out = []
    for ns in cluster.catalog.namespaces():
        db, _, name = ns.partition(".")
        if db in unsharded.INTERNAL_DATABASES or name.startswith("system."):
            continue
        kind = unsharded.kind_of(cluster, ns)
        if kind in (None, "view"):
            continue
        if cluster.is_sharded(ns):
            continue
        if unsharded.home_shard(cluster, ns) == shard:
            out.append(ns)
    return sorted(out)


def reply(cluster: Cluster, shard: str, state: str, done: Progress | None = None) -> dict[str, Any]:
    """The reply for `state` ("started", "ongoing", "drainingComplete", "completed") as the
    imitated version builds it; `done` is the progress an ongoing reply reports."""
    version = cluster.version
    out: dict[str, Any] = {"msg": MESSAGES[state], "state": state}
    if state in ("started", "completed"):
        out["shard"] = shard
    if state == "ongoing":
        assert done is not None
        remaining: dict[str, Any] = {
            "chunks": Int64(done.chunks),
            "dbs": Int64(len(done.dbs)),
            "jumboChunks": Int64(done.jumbo),
        }
        if version.lists_collections_to_move:
            remaining["collectionsToMove"] = Int64(len(done.collections))
        if version.has_shard_draining_commands:
            remaining["estimatedRemainingBytes"] = Int64(done.remaining_bytes)
        out["remaining"] = remaining
    if state in ("started", "ongoing"):
        dbs = done.dbs if done is not None else dbs_to_move(cluster, shard)
        if not version.lists_collections_to_move:
            out["note"] = NOTE_BEFORE_8_0
            out["dbsToMove"] = dbs
        else:
            colls = done.collections if done is not None else collections_to_move(cluster, shard)
            if dbs or colls:  # appendDBAndCollDrainingInfo: the note only when there is work
                out["note"] = NOTE_8_0
            out["dbsToMove"] = dbs
            out["collectionsToMove"] = colls
    return out
