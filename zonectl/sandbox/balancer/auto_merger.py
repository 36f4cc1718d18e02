"""The AutoMerger (7.0+): on the balancer's schedule, merge contiguous chunks on each shard.

`AutoMergerPolicy` (mongo:src/mongo/db/s/balancer/auto_merger_policy.cpp; balancer-settings.md
§3.3-§3.4). The balancer enables it while balancing is on, inside the window, with
`{_id: "automerge"}.enabled` not false, and disables it otherwise. Enabling starts a round
at once; a round that has drained starts the next after `autoMergerIntervalSecs` (3600 s).
A round asks every shard for the collections (`enableAutoMerge != false`, not
defragmenting, not unsplittable) with a chunk that arrived on it since the previous
round's watermark and before now minus the history window, and runs
`mergeAllChunksOnShard` (at most 1000 chunks each) for each, again while it merges
something. Disabling resets the watermarks, so the next round looks at every chunk.
Not modelled: `autoMergerThrottlingMS` (15 s between shards) and the 10 concurrent merges:
a round's merges all happen at its start.
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

    def enable(self) -> None:
        if not self.enabled:
            self.enabled = True
            self._init()

    def disable(self) -> None:
        self.enabled = False
        self._pending = False
        self._prev = self._cur = _ZERO

    def _init(self) -> None:
        self._prev = self._cur
        self._timer = self.cluster.now()
        self._pending = True

    def tick(self) -> int:
        """Run a round if one is due; the number of chunks merged."""
        if not self.enabled:
            return 0
        timer = self._timer
        if not self._pending and timer is not None and self.cluster.now() - timer > INTERVAL:
            self._init()
        if not self._pending:
            return 0
        self._pending = False
        self.rounds += 1
        self._cur = oldest_for_history(self.cluster)
        merged = 0
        for shard, namespaces in self._candidates().items():
            for ns in namespaces:
                while (n := merge_all_on_shard(self.cluster, ns, shard, MAX_CHUNKS_TO_MERGE)) > 0:
                    merged += n  # a <shard, ns> that merged is rescheduled in the round
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
