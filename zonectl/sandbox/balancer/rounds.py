"""The steps of one balancer round that change the cluster: zone splits and migration starts.

`Balancer._doBalanceRound` (mongo:src/mongo/db/s/balancer/balancer.cpp): split chunks at
zone boundaries for every collection (noBalance does not matter, reference §5.1 step 2),
then ask the policy for migrations and start them; a chunk the donor refuses as too big
is split, or marked jumbo when it cannot be (`_splitOrMarkJumbo`, §5.1 step 5).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from zonectl.sandbox.balancer import view
from zonectl.sandbox.balancer.costs import MigrationCost
from zonectl.sandbox.balancer.migrations import (
    InFlight,
    log_move,
    too_big_error,
)
from zonectl.sandbox.balancer.policy import Migration, PolicyParams, select_migrations
from zonectl.sandbox.balancer.settings import BalancerSettings

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.cluster import Cluster


def split_at_zone_boundaries(cluster: Cluster) -> int:
    """§5.1 step 2 for every sharded collection; the number of chunks split."""
    splits = 0
    for ns in cluster.sharded_namespaces():
        store, key = cluster.chunks(ns), cluster.key_pattern(ns)
        if store is None or key is None:
            continue
        ranges = view.zone_ranges(cluster, ns, key)
        # Split from the highest chunk down, so earlier indices stay valid.
        for i, points in reversed(view.split_points(store, ranges)):
            split_chunk(cluster, ns, i, points)
            splits += 1
    return splits


def split_chunk(
    cluster: Cluster, ns: str, i: int, points: list[Any], weights: list[int] | None = None
) -> list[int]:
    """Split chunk i of ns and log `split` (two pieces) or `multi-split` (one per piece);
    `weights` shares the size and count (`ChunkStore.split`)."""
    store = cluster.chunks(ns)
    assert store is not None
    before = store.chunk(i)
    pieces = store.split(i, points, cluster.now_ts(), weights)
    docs = [store.chunk(p) for p in pieces]
    before_doc: dict[str, Any] = {"min": before.min, "max": before.max, "lastmod": before.lastmod}
    if len(docs) == 2:
        left, right = ({"min": d.min, "max": d.max, "lastmod": d.lastmod} for d in docs)
        details: dict[str, Any] = {"before": before_doc, "left": left, "right": right}
        cluster.log_change("split", ns, details)
    else:
        for n, d in enumerate(docs, 1):
            piece = {"min": d.min, "max": d.max, "lastmod": d.lastmod}
            details = {"before": before_doc, "number": n, "of": len(docs), "chunk": piece}
            cluster.log_change("multi-split", ns, details)
    return pieces


# donor, to, bytes, docs, _waitForDelete, _secondaryThrottle on
Cost = Callable[[str, str, int, int, bool, bool], MigrationCost]


def start_migrations(
    cluster: Cluster,
    settings: BalancerSettings,
    params: PolicyParams,
    busy: set[str],
    cost: Cost,
    first: Callable[[set[str]], list[Migration]] | None = None,
) -> Iterator[tuple[InFlight | None, str | None]]:
    """Pick this round's migrations and start each: (in-flight migration, failure).
    `first` picks migrations before the policy (defragmentation's, as
    `BalancerDefragmentationPolicy::selectChunksToMove` runs first in `_doBalanceRound`)."""
    shards = view.shard_views(cluster)
    colls = [view.collection_view(cluster, ns, settings) for ns in cluster.sharded_namespaces()]
    available = {s.id for s in shards} - busy
    chosen = first(available) if first is not None else []
    chosen += select_migrations([c for c in colls if c is not None], shards, available, params)
    for mig in chosen:
        yield _start_one(cluster, mig, settings, cost)


def _start_one(
    cluster: Cluster, mig: Migration, settings: BalancerSettings, cost: Cost
) -> tuple[InFlight | None, str | None]:
    store = cluster.chunks(mig.ns)
    i = store.index_of_min(mig.chunk.min) if store is not None else None
    if store is None or i is None:
        return None, None
    max_bytes = view.max_chunk_size_bytes(cluster, mig.ns, settings)
    if cluster.version.imbalance_by_data_size:
        # 6.0+ balancer migrations are moveRange with min only: the donor moves at most one
        # chunk size and splits the rest off first (MigrateInfo with max = none).
        points = view.split_keys_for_size(store, i, max_bytes)
        if points:
            # autoSplitVector's first key: about one chunk size below it, the rest above.
            split_chunk(cluster, mig.ns, i, points[:1], [1, len(points)])
    # Draining moves always force jumbo (kForceBalancer); others only with the setting.
    force = mig.reason == "draining" or settings.attempt_to_balance_jumbo_chunks
    lo, hi = store.min_at(i), store.max_at(i)
    error = too_big_error(mig.ns, lo, hi, store.size_at(i), store.count_at(i), max_bytes)
    if error is not None and not force:
        points = view.split_keys_for_size(store, i, max_bytes)
        if points:
            split_chunk(cluster, mig.ns, i, points)
        else:
            store.set_jumbo(i, True)
        return None, error.message
    now = cluster.clock.now()
    donor = store.shard_at(i)
    # kDefault (absent) and false leave the clone unthrottled; true or a write concern wait.
    throttle = settings.secondary_throttle not in (None, False)
    steps = cost(
        donor, mig.to, store.size_at(i), store.count_at(i), settings.wait_for_delete, throttle
    )
    flight = InFlight(
        ns=mig.ns,
        min=lo,
        max=hi,
        donor=donor,
        recipient=mig.to,
        reason=mig.reason,
        started=now,
        due=now + steps.duration,
        cost=steps,
        wait_for_delete=settings.wait_for_delete,
        secondary_throttle=settings.secondary_throttle,
        max_chunk_size_bytes=max_bytes,
    )
    log_move(cluster, "moveChunk.start", flight, {}, by=donor)
    return flight, None
