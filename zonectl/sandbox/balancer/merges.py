"""Merging chunks on one shard: the config server's merge commit, and the search for
mergeable runs behind `mergeAllChunksOnShard` (7.0+; the auto-merger's only action).

`commitMergeAllChunksOnShard` (mongo:src/mongo/db/s/config/sharding_catalog_manager_chunk_
operations.cpp, balancer-settings.md §3.4): the shard's chunks that are not jumbo and have
been on it since before the snapshot history window, in key order; each maximal run of
contiguous ones becomes one chunk, stopping once `maxNumberOfChunksToMerge` chunks are
taken. Runs are also cut where the zone changes (the newer `computeAllMergeableChunks
OnShard`). Each merged range is logged as a `merge` in config.changelog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bson import Timestamp

from zonectl.sandbox.balancer import view

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.chunks import ChunkStore
    from zonectl.sandbox.catalog.cluster import Cluster

# getHistoryWindowInSeconds: max(minSnapshotHistoryWindowInSeconds = 300,
# transactionLifetimeLimitSeconds = 60, 10) with the default parameters.
HISTORY_WINDOW_SECONDS = 300
INT_MAX = 2**31 - 1


def commit_merge(cluster: Cluster, ns: str, first: int, end: int) -> None:
    """Merge chunks first..end-1 of ns (contiguous, on one shard) and log it as
    `logMergeToChangelog` does: prevPlacementVersion, mergedVersion ({e, t, v}, from
    memory), owningShard, min, max, numChunks."""
    store = cluster.chunks(ns)
    assert store is not None
    lo, hi, shard = store.min_at(first), store.max_at(end - 1), store.shard_at(first)
    before = _placement(cluster, ns)
    store.merge(first, end, cluster.now_ts())
    details = {
        "prevPlacementVersion": before,
        "mergedVersion": _placement(cluster, ns),
        "owningShard": shard,
        "min": lo,
        "max": hi,
        "numChunks": end - first,
    }
    cluster.log_change("merge", ns, details)


def _placement(cluster: Cluster, ns: str) -> dict[str, Any]:
    store = cluster.chunks(ns)
    doc = cluster.collection_doc(ns) or {}
    assert store is not None
    return {"e": store.epoch, "t": doc.get("timestamp"), "v": store.version}


def oldest_for_history(cluster: Cluster, window_s: int = HISTORY_WINDOW_SECONDS) -> Timestamp:
    """`getOldestTimestampSupportedForSnapshotHistory`: now minus the history window."""
    return Timestamp(max(int(cluster.now().timestamp()) - window_s, 0), 0)


def on_shard_since(store: ChunkStore, i: int) -> Timestamp:
    """`onCurrentShardSince` (7.0+), else the newest history entry; Timestamp(0, 1) if none."""
    chunk = store.chunk(i)
    if chunk.on_current_shard_since is not None:
        return chunk.on_current_shard_since
    return chunk.history[0]["validAfter"] if chunk.history else Timestamp(0, 1)


def _order(ts: Timestamp) -> tuple[int, int]:
    return (ts.time, ts.inc)


def mergeable_runs(
    cluster: Cluster, ns: str, shard: str, oldest: Timestamp, limit: int = INT_MAX
) -> list[tuple[int, int]]:
    """The (first, end) index ranges mergeAllChunksOnShard would merge, ascending."""
    store = cluster.chunks(ns)
    key = cluster.key_pattern(ns)
    if store is None or key is None:
        return []
    zones = view.chunk_zones(store, view.zone_ranges(cluster, ns, key))
    runs: list[tuple[int, int]] = []
    taken, start, count, prev = 0, -1, 0, -2

    def close() -> None:
        nonlocal taken, count
        if count > 1:
            runs.append((start, start + count))
            taken += count
        count = 0

    for i in store.positions_on(shard, 0, len(store)):
        if store.jumbo_at(i) or _order(on_shard_since(store, i)) >= _order(oldest):
            continue
        if i != prev + 1 or zones[i] != zones[prev]:
            close()
        if count == 0:
            start = i
        count += 1
        prev = i
        if taken + count == limit:
            break
    close()
    return runs


def merge_all_on_shard(
    cluster: Cluster, ns: str, shard: str, limit: int = INT_MAX, oldest: Timestamp | None = None
) -> int:
    """Merge every mergeable run of ns on shard; the number of chunks merged."""
    when = oldest if oldest is not None else oldest_for_history(cluster)
    runs = mergeable_runs(cluster, ns, shard, when, limit)
    for first, end in reversed(runs):  # from the top, so lower indices stay valid
        commit_merge(cluster, ns, first, end)
    return sum(end - first for first, end in runs)
