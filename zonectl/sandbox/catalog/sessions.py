"""config.system.sessions, the sharded collection every real cluster has (shared/reference/
config-dump.md §3.3): seeded with the cluster (seed/build.py), as a cluster that has run a
while has it.

Key `{_id: 1}`; the config server's `minNumChunksForSessionsCollection` (1024 unless a
cluster file's `configServer: {setParameter: ...}` sets it) rounded up to a power of two
chunks, split where the balancer splits it: `{_id: {id: UUID}}` whose first bits (10 of
them at 1024) count up and the rest are zero (`getSplitCandidatesForSessionsCollection`,
mongo:src/mongo/db/s/balancer/balancer_chunk_selection_policy_impl.cpp). From 6.0 its
`maxChunkSizeBytes` is 200000 (`logical_sessions::kMaxChunkSizeBytes`, SERVER-67346). The
sandbox holds no sessions: the chunks are empty and lie round-robin over the shards, a
layout no balancer round changes (counts even, no data, no two neighbours on one shard to
merge); a real cluster's placement depends on its history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bson import Binary, Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.cluster import Cluster

SESSIONS = "config.system.sessions"
MIN_CHUNKS = 1024  # minNumChunksForSessionsCollection's default
MAX_CHUNK_SIZE_BYTES = 200_000  # logical_sessions::kMaxChunkSizeBytes (6.0+)


def split_points(min_chunks: int = MIN_CHUNKS) -> list[Binary]:
    """The UUIDs that cut the 128-bit space into the next power of two of equal ranges."""
    bits = (min_chunks - 1).bit_length()
    return [
        Binary((i << (32 - bits)).to_bytes(4, "big") + bytes(12), 4) for i in range(1, 1 << bits)
    ]


def create_sessions(cluster: Cluster, min_chunks: int = MIN_CHUNKS) -> None:
    """Create config.system.sessions when the cluster has a shard and no such collection,
    in `min_chunks` (minNumChunksForSessionsCollection) rounded up to a power of two."""
    shards = cluster.shard_names()
    if not shards or cluster.chunks(SESSIONS) is not None:
        return
    bounds: list[dict[str, Any]] = [
        {"_id": MinKey()},
        *({"_id": {"id": point}} for point in split_points(min_chunks)),
        {"_id": MaxKey()},
    ]
    n = len(bounds) - 1
    cluster.create_collection(
        SESSIONS, {"_id": 1}, bounds=bounds, shards=[shards[i % len(shards)] for i in range(n)]
    )
    if cluster.version.has_configure_collection_balancing:
        cluster.set_collection_field(SESSIONS, "maxChunkSizeBytes", Int64(MAX_CHUNK_SIZE_BYTES))
