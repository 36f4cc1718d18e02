"""Collection defragmentation (6.0+): its phases, driven by balancer rounds.

`BalancerDefragmentationPolicy` (mongo:src/mongo/db/s/balancer/balancer_defragmentation_
policy.cpp, 7.0+; balancer-settings.md §5): a collection with `defragmentCollection: true`
gets in-memory state at the next round (from its persisted `defragmentationPhase`, else
mergeAndMeasureChunks, which is persisted), and goes
1. mergeAndMeasureChunks: merge each run of contiguous chunks on one shard in one zone,
   measure the rest (`dataSize`);
2. moveAndMergeChunks: a "small" chunk (at most 25 % of the chunk size) moves to the shard
   of an adjacent sibling in the same zone and is merged with it; siblings ranked as
   `_rankMergeableSibling` does; shards served by descending data size, at most one
   migration per shard per round, with the round's other migrations;
3. mergeChunks: merge the runs phase 2 left;
then finished: `defragmentCollection` and `defragmentationPhase` are removed. Each
transition is `$set` on config.collections. `balancerCollectionStatus` reports the phase
and `remainingChunksToProcess` (`report`). Stopping the balancer (or leaving its window)
drops the in-memory state ("none"); an abort persists `finished`, which the next round
carries out. Merges and measurements are streaming actions, 1 s apart (`defrag_stream`).
Simplifications (docs/sandbox-fidelity.md): estimates are the chunks' simulated sizes and
are not written to config.chunks, and a 6.0 collection goes from mergeChunks straight to
finished (its splitChunks phase does nothing since 6.0.3).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bson import Int64

from zonectl.sandbox.balancer import view
from zonectl.sandbox.balancer.defrag_stream import ActionStream, Range, runs, span
from zonectl.sandbox.balancer.merges import commit_merge
from zonectl.sandbox.balancer.policy import ChunkView, Migration
from zonectl.sandbox.keyorder import equal

if TYPE_CHECKING:
    from zonectl.sandbox.balancer.settings import BalancerSettings
    from zonectl.sandbox.catalog.cluster import Cluster

PHASE1, PHASE2, PHASE3, FINISHED = (
    "mergeAndMeasureChunks",
    "moveAndMergeChunks",
    "mergeChunks",
    "finished",
)
_NEXT = {PHASE1: PHASE2, PHASE2: PHASE3, PHASE3: FINISHED}
SMALL_PCT = 25  # kSmallChunkSizeThresholdPctg
REASON = "defragmentation"


@dataclass
class _Move:
    moved_min: dict[str, Any]  # the small chunk's min
    sibling_min: dict[str, Any]
    to: str


@dataclass
class _State:
    phase: str
    remaining: int = 0
    moves: list[_Move] = field(default_factory=list)  # phase 2 migrations in flight
    done: set[bytes] = field(default_factory=set)  # small chunks with no sibling left
    merges: list[Range] | None = None  # phases 1 and 3: ranges still to merge (None: unbuilt)
    measures: list[Range] = field(default_factory=list)  # phase 1: ranges still to measure


class Defragmenter:
    def __init__(self, cluster: Cluster, in_flight: Callable[[str], list[dict[str, Any]]]) -> None:
        """`in_flight(ns)`: the mins of the collection's migrations in flight."""
        self.cluster = cluster
        self.in_flight = in_flight
        self.actions = 0  # merges and phase transitions done so far (a round's progress)
        self.stream = ActionStream()
        self._states: dict[str, _State] = {}  # by namespace

    # ------------------------------------------------------------------ control
    def interrupt(self) -> None:
        """`interruptAllDefragmentations`: the balancer stopped; persisted phases stay."""
        self._states.clear()

    def abort(self, ns: str) -> None:
        """configureCollectionBalancing `defragmentCollection: false`."""
        doc = self.cluster.collection_doc(ns) or {}
        if doc.get("defragmentCollection"):
            self._states.pop(ns, None)
            self.cluster.set_collection_field(ns, "defragmentationPhase", FINISHED)

    def report(self, ns: str) -> dict[str, Any]:
        """`reportProgressOn`: the phase and its remaining chunks, or `none`."""
        state = self._states.get(ns)
        if state is None:
            return {"currentPhase": "none"}
        return {
            "currentPhase": state.phase,
            "progress": {"remainingChunksToProcess": Int64(state.remaining)},
        }

    # ------------------------------------------------------------------ rounds
    def step(self, settings: BalancerSettings, available: set[str]) -> list[Migration]:
        """One round: start/advance every defragmentation; phase-2 migrations to start
        (their shards are taken out of `available`)."""
        cluster = self.cluster
        for ns in list(self._states):
            if not cluster.is_sharded(ns):
                del self._states[ns]
        self.stream.begin(cluster.now())
        migrations: list[Migration] = []
        for ns in cluster.sharded_namespaces():
            doc = cluster.collection_doc(ns) or {}
            if not doc.get("defragmentCollection"):
                self._states.pop(ns, None)
                continue
            state = self._states.get(ns)
            if state is None:
                phase = doc.get("defragmentationPhase")
                if phase is None:
                    phase = PHASE1
                    cluster.set_collection_field(ns, "defragmentationPhase", phase)
                state = self._states[ns] = _State(phase)
            migrations.extend(self._advance(ns, state, settings, available))
        self.stream.end(waiting=bool(self._states))
        return migrations

    def _advance(
        self, ns: str, state: _State, settings: BalancerSettings, available: set[str]
    ) -> list[Migration]:
        while True:
            if state.phase in (PHASE1, PHASE3):
                if self._stream(ns, state):
                    return []
            elif state.phase == PHASE2:
                moves = self._move_and_merge(ns, state, settings, available)
                if moves or state.moves or state.remaining:
                    return moves
            else:
                self._finish(ns)
                return []
            self.actions += 1
            state.phase = _NEXT.get(state.phase, FINISHED)
            state.remaining, state.moves, state.done = 0, [], set()
            state.merges, state.measures = None, []
            self.cluster.set_collection_field(ns, "defragmentationPhase", state.phase)

    def _merge(self, ns: str, first: int, end: int) -> None:
        commit_merge(self.cluster, ns, first, end)
        self.actions += 1

    def _finish(self, ns: str) -> None:
        """`_clearDefragmentationState`."""
        self._states.pop(ns, None)
        self.cluster.set_collection_field(ns, "defragmentCollection", None)
        self.cluster.set_collection_field(ns, "defragmentationPhase", None)

    def _stream(self, ns: str, state: _State) -> bool:
        """Phases 1 and 3: run their merges (and phase 1's measurements) as the stream
        allows; True while some are left."""
        if state.merges is None:
            merges, singles = runs(self.cluster, ns)
            state.merges, state.measures = merges, singles if state.phase == PHASE1 else []
        store = self.cluster.chunks(ns)
        while store is not None and (state.merges or state.measures) and self.stream.take():
            if len(state.measures) > len(state.merges):
                state.measures.pop()  # dataSize: the sandbox knows the size already
                continue
            lo, hi = state.merges.pop()
            found = span(store, lo, hi)
            if found is not None:
                self._merge(ns, *found)
                if state.phase == PHASE1:
                    state.measures.append((lo, hi))  # a merged range is measured next
        state.remaining = len(state.merges) + len(state.measures)
        return state.remaining > 0

    # ------------------------------------------------------------------ phase 2
    def _move_and_merge(
        self, ns: str, state: _State, settings: BalancerSettings, available: set[str]
    ) -> list[Migration]:
        migrations: list[Migration] = []
        while self._pick(ns, state, settings, available, migrations):
            pass  # a same-shard merge changed the chunks: look again
        return migrations

    def _pick(
        self,
        ns: str,
        state: _State,
        settings: BalancerSettings,
        available: set[str],
        migrations: list[Migration],
    ) -> bool:
        """Add this round's phase-2 migrations; True after a merge that needs a new look."""
        cluster = self.cluster
        store = cluster.chunks(ns)
        key = cluster.key_pattern(ns)
        if store is None or key is None:
            return False
        threshold = view.max_chunk_size_bytes(cluster, ns, settings) // 100 * SMALL_PCT
        busy = self._settle(ns, state)
        zones = view.chunk_zones(store, view.zone_ranges(cluster, ns, key))
        sizes = store.data_sizes()
        draining = {s.id for s in view.shard_views(cluster) if s.draining}
        small = [
            i
            for i in range(len(store))
            if store.size_at(i) <= threshold and store.raw(i) not in state.done
        ]
        state.remaining = len(small)
        for shard in sorted(sizes, key=lambda s: -sizes[s]):
            if shard not in available:
                continue
            for i in sorted((i for i in small if store.shard_at(i) == shard), key=store.size_at):
                if i in busy:
                    continue
                siblings = [
                    j
                    for j in (i + 1, i - 1)
                    if 0 <= j < len(store)
                    and zones[j] == zones[i]
                    and (store.shard_at(j) == shard or store.shard_at(j) not in draining)
                ]
                if not siblings:
                    state.done.add(store.raw(i))  # cannot be processed: dropped
                    state.remaining -= 1
                    continue
                free = [j for j in siblings if j not in busy and store.shard_at(j) in available]
                if not free:
                    continue
                target = max(free, key=lambda j: self._rank(store, i, j, threshold, sizes))
                to = store.shard_at(target)
                if to == shard:
                    # kNoMoveRequired: nothing to migrate, the merge follows (inferred).
                    if not self.stream.take():
                        continue
                    self._merge(ns, min(i, target), max(i, target) + 1)
                    return True
                available.difference_update({shard, to})
                busy |= {i, target}
                state.moves.append(_Move(store.min_at(i), store.min_at(target), to))
                chunk = ChunkView(i, store.min_at(i), store.max_at(i), shard, store.size_at(i))
                migrations.append(Migration(ns, chunk, to, REASON))
                break
        return False

    @staticmethod
    def _rank(store: Any, i: int, j: int, threshold: int, sizes: dict[str, int]) -> tuple[int, int]:
        """`_rankMergeableSibling`, then the destination with less data."""
        rank = 0
        if store.shard_at(i) == store.shard_at(j):
            rank += 8
        elif store.size_at(i) < store.size_at(j):
            rank += 4
        if store.size_at(i) + store.size_at(j) > threshold:
            rank += 2 if store.size_at(j) < threshold else 1
        return rank, -sizes.get(store.shard_at(j), 0)

    def _settle(self, ns: str, state: _State) -> set[int]:
        """Merge the moves that committed; the chunk indices still busy in a move."""
        store = self.cluster.chunks(ns)
        assert store is not None
        busy: set[int] = set()
        left: list[_Move] = []
        for move in state.moves:
            i, j = store.index_of_min(move.moved_min), store.index_of_min(move.sibling_min)
            if i is None or j is None or abs(i - j) != 1 or store.shard_at(j) != move.to:
                continue  # the chunks changed under it: forget the pair
            if store.shard_at(i) == move.to:
                if not self.stream.take():  # committed; its merge waits for the stream
                    busy |= {i, j}
                    left.append(move)
                    continue
                lo = min(i, j)
                self._merge(ns, lo, lo + 2)
                continue
            if self._in_flight(ns, move):
                busy |= {i, j}
                left.append(move)
        state.moves = left
        return busy

    def _in_flight(self, ns: str, move: _Move) -> bool:
        return any(equal(lo, move.moved_min) for lo in self.in_flight(ns))
