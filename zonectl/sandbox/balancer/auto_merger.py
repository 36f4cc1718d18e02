"""The AutoMerger (7.0+): on the balancer's schedule, merge contiguous chunks on each shard.

`AutoMergerPolicy` (mongo:src/mongo/db/s/balancer/auto_merger_policy.cpp; balancer-settings.md
§3.3-§3.4). The balancer enables it while balancing is on, inside the window, with
`{_id: "automerge"}.enabled` not false, and disables it otherwise. Enabling starts a round
at once; a round that has drained starts the next after `autoMergerIntervalSecs` (3600 s).
A round asks every shard for the collections (`enableAutoMerge != false`, not
defragmenting, not unsplittable) with a chunk that arrived on it since the previous
round's watermark and before now minus the history window, and runs
`mergeAllChunksOnShard` (at most 1000 chunks each) for each, again while it merges
something. `autoMergerThrottlingMS` (15 s) passes before a round's first merge and
before each next shard's; a shard's own collections follow each other at once. Disabling
resets the watermarks and drops the round, so the next round looks at every chunk. Not
modelled: the 10 concurrent merges (the sandbox's merges take no time).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from bson import Timestamp

from zonectl.sandbox.balancer.merges import merge_all_on_shard, oldest_for_history, on_shard_since

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.cluster import Cluster

INTERVAL = dt.timedelta(seconds=3600)  # autoMergerIntervalSecs default (DOCS-15977)
MAX_CHUNKS_TO_MERGE = 1000  # AutoMergerPolicy::MAX_NUMBER_OF_CHUNKS_TO_MERGE (SERVER-74405)
THROTTLE = dt.timedelta(seconds=15)  # autoMergerThrottlingMS default (DOCS-15977)
_ZERO = Timestamp(0, 0)


def _order(ts: Timestamp) -> tuple[int, int]:
    return (ts.time, ts.inc)


class AutoMerger:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.enabled = False
        self.rounds = 0  # rounds run since the sandbox started (for tests and reports)
        self._prev = _ZERO  # _maxHistoryTimePreviousRound
        self._cur = _ZERO  # _maxHistoryTimeCurrentRound
        self._timer: dt.datetime | None = None  # _intervalTimer
        self._pending = False  # _firstAction: a round is due
        self._todo: list[tuple[str, list[str]]] = []  # _collectionsToMergePerShard
        self._next_at: dt.datetime | None = None  # when the next shard's list may start

    def enable(self) -> None:
        if not self.enabled:
            self.enabled = True
            self._init()

    def disable(self) -> None:
        self.enabled = False
        self._pending = False
        self._todo = []
        self._prev = self._cur = _ZERO

    def _init(self) -> None:
        self._prev = self._cur
        self._timer = self.cluster.now()
        self._pending = True

    def tick(self) -> int:
        """Run the merges that are due; the number of chunks merged."""
        if not self.enabled:
            return 0
        now = self.cluster.now()
        timer = self._timer
        idle = not self._pending and not self._todo
        if idle and timer is not None and now - timer > INTERVAL:
            self._init()
        if self._pending:
            self._pending = False
            self.rounds += 1
            self._cur = oldest_for_history(self.cluster)
            self._todo = list(self._candidates().items())
            self._next_at = now + THROTTLE  # applyThrottling before the first action
        merged = 0
        while self._todo and self._next_at is not None and self._next_at <= now:
            shard, namespaces = self._todo.pop(0)
            for ns in namespaces:
                if not self.cluster.is_sharded(ns):
                    continue
                while (n := merge_all_on_shard(self.cluster, ns, shard, MAX_CHUNKS_TO_MERGE)) > 0:
                    merged += n  # a <shard, ns> that merged is rescheduled in the round
            self._next_at += THROTTLE  # and again before the next shard's list
        return merged

    def _candidates(self) -> dict[str, list[str]]:
        """`_getNamespacesWithMergeableChunksPerShard`: per shard, the collections with a
        chunk whose onCurrentShardSince is in [previous watermark, current watermark)."""
        cluster = self.cluster
        out: dict[str, list[str]] = {}
        for shard in sorted(cluster.shard_names()):
            for ns in cluster.sharded_namespaces():
                doc = cluster.collection_doc(ns) or {}
                if doc.get("enableAutoMerge") is False or doc.get("defragmentCollection") is True:
                    continue
                store = cluster.chunks(ns)
                if store is None:
                    continue
                for i in store.positions_on(shard, 0, len(store)):
                    since = _order(on_shard_since(store, i))
                    if _order(self._prev) <= since < _order(self._cur):
                        out.setdefault(shard, []).append(ns)
                        break
        return out
