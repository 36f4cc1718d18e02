"""Defragmentation's streaming actions (merges and `dataSize` measurements), one at a time.

The balancer's action stream runs them `chunkDefragmentationThrottlingMS` (1000 ms,
mongo:src/mongo/db/s/sharding_config_server_parameters.idl; SERVER-65649) apart. The
sandbox keeps the stream's own clock: between two rounds it may catch up on the actions it
would have run at that pace since work was waiting, never more. A merge is found again by
its bounds when it runs; one whose chunks changed meanwhile is dropped.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zonectl.sandbox.balancer import view
from zonectl.sandbox.keyorder import compare

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.chunks import ChunkStore
    from zonectl.sandbox.catalog.cluster import Cluster

THROTTLE = dt.timedelta(milliseconds=1000)

Range = tuple[dict[str, Any], dict[str, Any]]


class ActionStream:
    def __init__(self) -> None:
        self._cursor: dt.datetime | None = None  # when the next action may run
        self._waiting = False  # work was left over at the end of the last round

    def begin(self, now: dt.datetime) -> None:
        if self._cursor is None or not self._waiting or self._cursor > now + THROTTLE:
            self._cursor = now
        self._now = now

    def take(self) -> bool:
        """May one more action run now? (It then occupies the stream for the throttle.)"""
        if self._cursor is None or self._cursor > self._now:
            return False
        self._cursor += THROTTLE
        return True

    def end(self, waiting: bool) -> None:
        self._waiting = waiting


def runs(cluster: Cluster, ns: str) -> tuple[list[Range], list[Range]]:
    """`MergeAndMeasureChunksPhase::build` / `MergeChunksPhase::build`: from the top, each
    run of contiguous chunks on one shard in one zone (`areMergeable`) to merge, and the
    single chunks (to measure in phase 1)."""
    store = cluster.chunks(ns)
    key = cluster.key_pattern(ns)
    if store is None or key is None:
        return [], []
    zones = view.chunk_zones(store, view.zone_ranges(cluster, ns, key))
    shards = store.shards()
    merges: list[Range] = []
    singles: list[Range] = []
    end = len(shards)
    while end > 0:
        first = end - 1
        place = (shards[first], zones[first])
        while first > 0 and (shards[first - 1], zones[first - 1]) == place:
            first -= 1
        rng = (store.min_at(first), store.max_at(end - 1))
        (merges if end - first > 1 else singles).append(rng)
        end = first
    return merges, singles


def span(store: ChunkStore, lo: Mapping[str, Any], hi: Mapping[str, Any]) -> tuple[int, int] | None:
    """The chunks exactly covering [lo, hi) on one shard, as (first, end), else None."""
    first = store.index_of_min(lo)
    if first is None:
        return None
    end = first + 1
    while end <= len(store) and compare(store.max_at(end - 1), hi) < 0:
        end += 1
    if end > len(store) or compare(store.max_at(end - 1), hi) != 0:
        return None
    shard = store.shard_at(first)
    if any(store.shard_at(j) != shard for j in range(first, end)):
        return None
    return first, end
