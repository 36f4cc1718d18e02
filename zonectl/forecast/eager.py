"""zonectl's parallel eager migration, as a pure scheduler and its simulation.

`Dispatcher` decides which out-of-zone chunks move next and where to, across every
namespace of a run in one queue: several at once over disjoint shard pairs, at most
`parallel` at a time. Never two moves sharing a shard: a
shard's ActiveMigrationsRegistry refuses to donate while it receives and to receive while
it donates or receives (mongo:src/mongo/db/s/active_migrations_registry.cpp,
registerDonateChunk/registerReceiveChunk), so each shard takes part in one migration at a
time. Order: the shard with the most bytes still to send or receive first (it bounds the
total time), then the largest chunk first (long moves start early, so the tail is short
moves: list scheduling's largest-first rule). moveCollection (8.0) joins the same queue:
one at a time (the manual: one collection at a time), first (at least 5 minutes each, the
longest jobs), alongside the chunk migrations: it is a resharding, which takes no place in
the active-migrations registry (its interface, active_migrations_registry.h, registers chunk
donations, receipts and split/merges only), so it neither counts against `parallel` nor
makes its shards busy. Destination: the zone's idle shard with the
fewest projected bytes of the move's namespace, and only while it is within one chunk of
the least loaded holder, so a zone's shards end even. `apply --migrate` runs the same
Dispatcher against a cluster; `simulate_eager` runs it against a cost model (timing.py).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from zonectl.forecast.timing import copy_seconds


def default_parallel(shards: int) -> int:
    """`--parallel` when not given: the shard count. MongoDB's active-migrations registry
    already caps every shard at one donation and one receipt at a time, so the load on any
    one shard is bounded whatever N is; N = shards lets every shard send and receive at
    once (a balancer round, where each shard takes part in one migration, cannot), which
    is what reaches the lower bound when every shard both gives and takes. Lower it to
    spare a busy cluster."""
    return max(1, shards)


CHUNK, COLLECTION = "chunk", "collection"  # a chunk migration; a moveCollection


@dataclass(init=False, unsafe_hash=True, slots=True)
class PendingMove:
    """One out-of-zone chunk (or, kind COLLECTION, one unsharded collection): where it is,
    which shards may take it, how big it is. A dataclass equal, hashed, shown and replaced
    (dataclasses.replace) as the frozen one it was, its fields Final (mypy refuses an
    assignment), with a plain __init__: a forecast builds one per chunk to move, and a
    frozen dataclass's __init__ costs about five times as much (object.__setattr__ per
    field)."""

    ns: Final[str]
    index: Final[int]  # the chunk's position among the namespace's chunks, for reporting
    donor: Final[str]
    holders: Final[tuple[str, ...]]  # shards carrying the chunk's zone (a collection: its target)
    bytes: Final[int]
    payload: Final[object]  # the caller's (apply: the chunk's bounds, or the op)
    kind: Final[str]

    def __init__(
        self,
        ns: str,
        index: int,
        donor: str,
        holders: tuple[str, ...],
        bytes: int,
        payload: object = None,
        kind: str = CHUNK,
    ) -> None:
        self.ns = ns
        self.index = index
        self.donor = donor
        self.holders = holders
        self.bytes = bytes
        self.payload = payload
        self.kind = kind


def _order(m: PendingMove) -> tuple[int, str, int]:
    """A donor's moves in order: the largest first, then by namespace and chunk."""
    return (-m.bytes, m.ns, m.index)


# A donor's next move in Dispatcher.next_moves' merge (see there).
_Entry = tuple[
    float, tuple[int, str, int], int, int, list["PendingMove"], list[tuple[int, str, int]]
]


class Started(NamedTuple):  # one per move started: a tuple is the cheapest to build
    move: PendingMove
    to: str


Loads = Mapping[str, Mapping[str, int]]  # namespace -> shard -> bytes of it
_NO_LOADS: Mapping[str, int] = {}


def max_parallel(shards: int) -> int:
    """Migrations a cluster of `shards` can run at once: each takes a donor and a recipient,
    and a shard takes part in one at a time."""
    return max(1, shards // 2)


class Dispatcher:
    def __init__(self, moves: Iterable[PendingMove], loads: Loads, parallel: int) -> None:
        if parallel < 1:
            raise ValueError("parallel must be at least 1")
        self.parallel = parallel
        # Pending moves by identity, in the caller's order (payloads need not hash).
        self._pending: dict[int, PendingMove] = {id(m): m for m in moves}
        self._collections = [m for m in self._pending.values() if m.kind == COLLECTION]
        # Each donor's chunk moves in their order within a donor (largest first), sorted
        # once: next_moves merges the donors' lists instead of sorting every pending move
        # on every call, which made a forecast of thousands of moves quadratic. `_head`
        # skips the moves already started at the front of a list.
        self._by_donor: dict[str, list[PendingMove]] = {}
        # Bytes each shard still has to send, plus its share of what its zones must receive
        # (`_count` of each chunk move, inline, in the same order).
        self.work: dict[str, float] = {}
        by_donor, work = self._by_donor, self.work
        for m in self._pending.values():
            if m.kind == CHUNK:
                donor, size = m.donor, m.bytes
                if donor in by_donor:
                    by_donor[donor].append(m)
                else:
                    by_donor[donor] = [m]
                work[donor] = work.get(donor, 0.0) + size
                share = size / len(m.holders) if m.holders else 0.0
                for h in m.holders:
                    work[h] = work.get(h, 0.0) + share
        # Each list's order keys, kept beside it: next_moves compares them on every call.
        self._keys: dict[str, list[tuple[int, str, int]]] = {}
        for donor, queue in by_donor.items():
            queue.sort(key=_order)
            self._keys[donor] = [_order(m) for m in queue]
        self._head = dict.fromkeys(by_donor, 0)
        self._chunks_left = sum(len(q) for q in by_donor.values())
        # Projected bytes of each namespace per shard (a namespace's own zones even out).
        self.loads = {ns: dict(per_shard) for ns, per_shard in loads.items()}
        self.busy: set[str] = set()  # shards in a running move, as donor or recipient
        self.running: list[Started] = []
        self._migrating = 0  # chunk migrations among `running`

    @property
    def pending(self) -> list[PendingMove]:
        """The moves not started yet, in the caller's order."""
        return list(self._pending.values())

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    @property
    def finished(self) -> bool:
        return not self._pending and not self.running

    def next_moves(self) -> list[Started]:
        """Moves to start now (possibly none), already counted as running. Candidates go
        by (the donor's work when the call began, largest chunk, namespace, index): the
        donors' presorted lists merged in that order, busy donors left out (nothing ends
        during the call, so a busy donor stays busy) and the moves already started skipped."""
        started = self._next_collection() if self._collections else []
        migrating, parallel = self._migrating, self.parallel
        if migrating >= parallel or not self._chunks_left:
            return started
        pending, busy, heads, work = self._pending, self.busy, self._head, self.work

        # The donors' lists merged by key; a donor that turns busy is dropped whole (the
        # rest of its list would only be skipped), so a call costs the moves it looks at.
        # An entry: the key in two parts (the donor's work when the call began, negated;
        # the move's order key: compared as one flat key), the donor's place, the move's
        # place in its list, the list and its order keys.
        heap: list[_Entry] = []
        keys = self._keys
        for i, (donor, queue) in enumerate(self._by_donor.items()):
            if donor in busy:
                continue
            j, n = heads[donor], len(queue)
            while j < n and id(queue[j]) not in pending:  # past the started ones
                j += 1
            heads[donor] = j
            if j < n:
                order = keys[donor]
                heap.append((-work.get(donor, 0.0), order[j], i, j, queue, order))
        heapq.heapify(heap)
        while heap and migrating < parallel:
            w, _, i, j, queue, order = heapq.heappop(heap)
            move = queue[j]
            donor = move.donor
            if donor in busy:
                continue
            to = self._recipient(move)
            if to is None:
                j += 1
                while j < len(queue) and id(queue[j]) not in pending:
                    j += 1
                if j < len(queue):
                    heapq.heappush(heap, (w, order[j], i, j, queue, order))
                continue
            s = Started(move, to)
            del pending[id(move)]
            self._chunks_left -= 1
            self._migrating += 1
            size = move.bytes
            # _count(move, -1), inline: x + (-b) / n is x - b / n, to the bit
            work[donor] = work.get(donor, 0.0) - size
            share = size / len(move.holders)
            for h in move.holders:
                work[h] = work.get(h, 0.0) - share
            self.running.append(s)
            busy.add(donor)
            busy.add(to)
            loads = self.loads.setdefault(move.ns, {})
            loads[to] = loads.get(to, 0) + size
            loads[donor] = loads.get(donor, 0) - size
            started.append(s)
            migrating += 1
        return started

    def _next_collection(self) -> list[Started]:
        """The next moveCollection, in the plan's order, when none runs."""
        if not self._collections or any(r.move.kind == COLLECTION for r in self.running):
            return []
        move = self._collections.pop(0)
        del self._pending[id(move)]
        self.running.append(s := Started(move, move.holders[0]))
        return [s]

    def _count(self, m: PendingMove, sign: int) -> None:
        if m.kind != CHUNK:
            return  # not a registry migration: it occupies no shard's turn
        self.work[m.donor] = self.work.get(m.donor, 0.0) + sign * m.bytes
        for h in m.holders:
            self.work[h] = self.work.get(h, 0.0) + sign * m.bytes / len(m.holders)

    def _recipient(self, move: PendingMove) -> str | None:
        """The zone's idle shard (not the donor) with the fewest projected bytes of the
        move's namespace (the first of equals, by name), among those within one chunk of
        the least loaded holder; None: no such shard now."""
        donor, busy = move.donor, self.busy
        loads = self.loads.get(move.ns, _NO_LOADS)
        floor: int | None = None
        for h in move.holders:
            if h != donor:
                load = loads.get(h, 0)
                if floor is None or load < floor:
                    floor = load
        if floor is None:
            return None
        slack = floor + max(move.bytes, 1)
        best: tuple[int, str] | None = None
        for h in move.holders:
            if h != donor and h not in busy:
                load = loads.get(h, 0)
                if load <= slack and (best is None or (load, h) < best):
                    best = (load, h)
        return None if best is None else best[1]

    def done(self, started: Started, ok: bool = True) -> None:
        """A move ended; a failed one gives its bytes back to the donor's projection."""
        self.running.remove(started)
        move = started.move
        if move.kind != CHUNK:
            return
        self._migrating -= 1
        self.busy.discard(move.donor)
        self.busy.discard(started.to)
        if not ok:
            loads = self.loads[move.ns]
            loads[started.to] -= move.bytes
            loads[move.donor] = loads.get(move.donor, 0) + move.bytes

    def give_up(self) -> list[PendingMove]:
        """Stop starting moves (budget, interrupt): the ones never started."""
        left = self.pending
        self._pending.clear()
        self._collections.clear()
        self._chunks_left = 0
        for m in left:
            self._count(m, -1)
        return left


def lower_bound_seconds(moves: Sequence[PendingMove], rate: float) -> float:
    """No schedule finishes sooner: the busiest shard's bytes to send plus the bytes it
    must receive with its zone's shards sharing evenly, at `rate` (a shard takes part in
    one migration at a time)."""
    work: dict[str, float] = {}
    for m in moves:
        if m.kind != CHUNK:
            continue
        work[m.donor] = work.get(m.donor, 0.0) + m.bytes
        for h in m.holders:
            work[h] = work.get(h, 0.0) + m.bytes / len(m.holders)
    return max([*work.values(), 0.0]) / rate


@dataclass(frozen=True)
class EagerOutcome:
    seconds: float  # from the first start to the last commit
    moved: int
    left: int  # not started: the budget ran out (or no shard can take them)
    drained: dict[str, float] = field(default_factory=dict)  # donor -> its last commit, s
    finished: dict[str, float] = field(default_factory=dict)  # namespace -> its last commit
    # Each move's commit (s from the start) and bytes, in time order: the burn-down.
    commits: list[tuple[float, int]] = field(default_factory=list)


def simulate_eager(
    moves: Sequence[PendingMove],
    loads: Loads,
    parallel: int,
    rate: float,
    *,
    budget_s: float | None = None,
    cost: Callable[[str, str, int], float] | None = None,
) -> EagerOutcome:
    """The time `apply --migrate --parallel N` takes for `moves` (of every namespace, in one
    queue as apply runs them): each costs `cost(donor, recipient, bytes)` seconds, by
    default the fixed part + bytes at `rate`."""
    seconds_for = cost or (lambda _d, _r, n: copy_seconds(n, rate))
    dispatcher = Dispatcher(moves, loads, parallel)
    events: list[tuple[float, int, Started]] = []
    now, seq, moved, left = 0.0, 0, 0, 0
    drained: dict[str, float] = {}
    finished: dict[str, float] = {}
    commits: list[tuple[float, int]] = []
    while True:
        if budget_s is None or now < budget_s:
            for s in dispatcher.next_moves():
                heapq.heappush(
                    events, (now + seconds_for(s.move.donor, s.to, s.move.bytes), seq, s)
                )
                seq += 1
        elif dispatcher.has_pending:
            left = len(dispatcher.give_up())
        if not events:
            break
        now, _, s = heapq.heappop(events)
        dispatcher.done(s)
        drained[s.move.donor] = finished[s.move.ns] = now
        commits.append((now, s.move.bytes))
        moved += 1
    left += len(dispatcher.pending)
    return EagerOutcome(now, moved, left, drained, finished, commits)
