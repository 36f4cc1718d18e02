"""The forecast's simulations as they were before they were made cheap per namespace (the
shard/zone layout computed once, the dispatcher's lists walked by index, ...): the reference
the differential tests hold the current ones to. Verbatim but for the names."""

# ruff: noqa
from __future__ import annotations

import datetime as dt
import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from zonectl.forecast.balancer import (
    DEFAULT_INTERVAL_S,
    SHORT_INTERVAL_S,
    BalancerOutcome,
    NamespaceChunks,
)
from zonectl.forecast.balancer_window import BalancerWindow
from zonectl.forecast.eager import CHUNK, COLLECTION, EagerOutcome, Loads, PendingMove, Started
from zonectl.forecast.reshard import STORAGE_FACTOR, ReshardRates, ReshardRoute, _placement
from zonectl.forecast.timing import copy_seconds


class _RefCollection:
    """A collection's state during the simulation: loads and out-of-zone chunks per shard."""

    def __init__(
        self, c: NamespaceChunks, shard_zones: Mapping[str, frozenset[str]], by_size: bool
    ) -> None:
        self.c = c
        self.by_size = by_size
        self.sizes = list(c.sizes)  # what is left of each chunk (cut by chunk size)
        self.cap = c.max_chunk_bytes if by_size else None
        self.load: dict[str, int] = {**dict.fromkeys(shard_zones, 0), **c.shard_loads(by_size)}
        self.violators: dict[str, list[int]] = {}
        for i, (shard, zone) in enumerate(zip(c.shards, c.zones, strict=True)):
            outside = zone is not None and zone not in shard_zones.get(shard, frozenset())
            if outside and i not in c.jumbo:
                self.violators.setdefault(shard, []).append(i)
        self.left = sum(len(v) for v in self.violators.values())  # kept as picks are made

    def round(
        self,
        order: Sequence[str],
        shard_zones: Mapping[str, frozenset[str]],
        available: set[str],
        seconds_for: Callable[[str, str, int], float],
    ) -> list[tuple[str, float, int]]:
        """This round's zone-violation picks: (donor, seconds, bytes) of each migration."""
        started: list[tuple[str, float, int]] = []
        if not self.left:
            return started
        for shard in order:
            if shard not in available or len(available) < 2:
                continue
            for pos, i in enumerate(self.violators.get(shard, [])):
                zone = self.c.zones[i]
                holders = [s for s in order if s in available and zone in shard_zones[s]]
                if not holders:
                    continue  # no recipient this round (or ever): warning 21892
                to = min(holders, key=lambda s: self.load.get(s, 0))  # first of equals
                available -= {shard, to}
                size = self.sizes[i]
                if self.cap and size > self.cap:  # one chunk size cut off; the rest stays
                    size = self.cap
                    self.sizes[i] -= size
                else:
                    del self.violators[shard][pos]
                    self.left -= 1
                started.append((shard, seconds_for(shard, to, size), size))
                step = size if self.by_size else 1
                self.load[shard] -= step
                self.load[to] = self.load.get(to, 0) + step
                break
        return started


def reference_balancer(
    colls: Sequence[NamespaceChunks],
    shard_zones: Mapping[str, frozenset[str]],
    rate: float,
    now: dt.datetime,
    *,
    window: BalancerWindow | None = None,
    by_data_size: bool = True,
    cost: Callable[[str, str, int], float] | None = None,
    max_rounds: int = 1_000_000,
) -> BalancerOutcome:
    """Simulate rounds from `now` until no chunk sits outside its zone; each migration costs
    `cost(donor, recipient, bytes)` seconds, by default the fixed part + bytes at `rate`."""
    seconds_for = cost or (lambda _d, _r, n: copy_seconds(n, rate))
    order = list(shard_zones)  # config.shards order, as the policy walks it
    # The collections with chunks left, in order; one that is done drops out (kept as a
    # list, not rescanned whole each round: 10,000 collections make 10,000 rounds).
    state = [s for c in colls if (s := _RefCollection(c, shard_zones, by_data_size)).left]
    t, moved, rounds = now, 0, 0
    drained: dict[str, dt.datetime] = {}
    commits: list[tuple[dt.datetime, int]] = []
    while rounds < max_rounds:
        if not state:
            return BalancerOutcome(t if moved else now, moved, rounds, drained, commits)
        if window is not None and not window.contains(t):
            t = window.next_open(t)
        rounds += 1
        available = set(order)
        started: list[tuple[str, float, int]] = []
        seen = 0
        for s in state:  # collections in order; none can start once < 2 shards are free
            if len(available) < 2:
                break
            seen += 1
            started += s.round(order, shard_zones, available, seconds_for)
        # only the collections this round looked at can have finished
        state[:seen] = [s for s in state[:seen] if s.left]
        if not started:
            return BalancerOutcome(None, moved, rounds, drained, commits)  # stuck
        for donor, seconds, size in sorted(started, key=lambda m: m[1]):
            drained[donor] = t + dt.timedelta(seconds=seconds)
            commits.append((drained[donor], size))
        moved += len(started)
        # The round waits for all its migrations; the finish is the last commit, the next
        # round starts kShortBalanceRoundInterval after it.
        end = t + dt.timedelta(seconds=max(m[1] for m in started))
        if not state:
            return BalancerOutcome(end, moved, rounds, drained, commits)
        t = end + dt.timedelta(seconds=SHORT_INTERVAL_S)
    return BalancerOutcome(None, moved, rounds, drained, commits)


class ReferenceDispatcher:
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
        for m in self._pending.values():
            if m.kind == CHUNK:
                self._by_donor.setdefault(m.donor, []).append(m)
        for queue in self._by_donor.values():
            queue.sort(key=lambda m: (-m.bytes, m.ns, m.index))
        self._head = dict.fromkeys(self._by_donor, 0)
        self._chunks_left = sum(len(q) for q in self._by_donor.values())
        # Projected bytes of each namespace per shard (a namespace's own zones even out).
        self.loads = {ns: dict(per_shard) for ns, per_shard in loads.items()}
        # Bytes each shard still has to send, plus its share of what its zones must receive.
        self.work: dict[str, float] = {}
        for m in self._pending.values():
            self._count(m, 1)
        self.busy: set[str] = set()  # shards in a running move, as donor or recipient
        self.running: list[Started] = []

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
        started = self._next_collection()
        migrating = sum(r.move.kind == CHUNK for r in self.running)
        if migrating >= self.parallel or not self._chunks_left:
            return started
        work = dict(self.work)

        def key(m: PendingMove) -> tuple[float, int, str, int]:
            return (-work.get(m.donor, 0.0), -m.bytes, m.ns, m.index)

        # The donors' lists merged by `key`; a donor that turns busy is dropped whole (the
        # rest of its list would only be skipped), so a call costs the moves it looks at.
        heap: list[tuple[tuple[float, int, str, int], int, PendingMove, Iterator[PendingMove]]]
        heap = []
        for i, donor in enumerate(self._by_donor):
            if donor not in self.busy:
                queue = self._live(donor)
                if (first := next(queue, None)) is not None:
                    heap.append((key(first), i, first, queue))
        heapq.heapify(heap)
        while heap and migrating < self.parallel:
            _, i, move, queue = heapq.heappop(heap)
            if move.donor in self.busy:
                continue
            to = self._recipient(move)
            if to is None:
                if (after := next(queue, None)) is not None:
                    heapq.heappush(heap, (key(after), i, after, queue))
                continue
            s = Started(move, to)
            del self._pending[id(move)]
            self._chunks_left -= 1
            self._count(move, -1)
            self.running.append(s)
            self.busy |= {move.donor, to}
            loads = self.loads.setdefault(move.ns, {})
            loads[to] = loads.get(to, 0) + move.bytes
            loads[move.donor] = loads.get(move.donor, 0) - move.bytes
            started.append(s)
            migrating += 1
        return started

    def _live(self, donor: str) -> Iterator[PendingMove]:
        """The donor's pending moves in order, past the started ones at its front."""
        queue, head = self._by_donor[donor], self._head[donor]
        while head < len(queue) and id(queue[head]) not in self._pending:
            head += 1
        self._head[donor] = head
        return (queue[j] for j in range(head, len(queue)) if id(queue[j]) in self._pending)

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
        holders = [h for h in move.holders if h != move.donor]
        if not holders:
            return None
        loads = self.loads.get(move.ns, {})
        floor = min(loads.get(h, 0) for h in holders)
        slack = floor + max(move.bytes, 1)
        idle = [h for h in holders if h not in self.busy and loads.get(h, 0) <= slack]
        if not idle:
            return None
        return min(idle, key=lambda h: (loads.get(h, 0), h))

    def done(self, started: Started, ok: bool = True) -> None:
        """A move ended; a failed one gives its bytes back to the donor's projection."""
        self.running.remove(started)
        move = started.move
        if move.kind != CHUNK:
            return
        self.busy -= {move.donor, started.to}
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


def reference_eager(
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
    dispatcher = ReferenceDispatcher(moves, loads, parallel)
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


def reference_pending_moves(
    c: NamespaceChunks, shard_zones: Mapping[str, frozenset[str]]
) -> tuple[list[PendingMove], dict[str, int]]:
    """The out-of-zone chunks of `c` as moves, and the bytes of `c` per shard."""
    holders: dict[str, tuple[str, ...]] = {}
    loads: dict[str, int] = {**dict.fromkeys(shard_zones, 0), **c.shard_loads(True)}
    moves: list[PendingMove] = []
    for i, (shard, size, zone) in enumerate(zip(c.shards, c.sizes, c.zones, strict=True)):
        if zone is None or zone in shard_zones.get(shard, frozenset()) or i in c.jumbo:
            continue
        if zone not in holders:
            holders[zone] = tuple(s for s, z in shard_zones.items() if zone in z)
        if holders[zone]:
            moves.append(PendingMove(c.ns, i, shard, holders[zone], size))
    return moves, loads


def reference_placement_from_loads(
    c: NamespaceChunks, loads: Mapping[str, int], shard_zones: Mapping[str, frozenset[str]]
) -> dict[str, int]:
    """Each zone's bytes after the change (what its shards hold, less what leaves them,
    plus what comes in: the out-of-zone chunks listed), spread evenly over its shards; the
    rest, in no zone, over every shard. A shard in several zones counts for its first."""
    zone_of = {s: min(z) for s, z in shard_zones.items() if z}
    per_zone: dict[str, int] = {}
    for shard, nbytes in loads.items():
        if shard in zone_of:
            per_zone[zone_of[shard]] = per_zone.get(zone_of[shard], 0) + nbytes
    for shard, size, zone in zip(c.shards, c.sizes, c.zones, strict=True):
        if shard in zone_of:
            per_zone[zone_of[shard]] -= size
        if zone is not None:
            per_zone[zone] = per_zone.get(zone, 0) + size
    received: dict[str, int] = dict.fromkeys(shard_zones, 0)
    for zone, nbytes in per_zone.items():
        holders = [s for s, z in zone_of.items() if z == zone] or list(shard_zones)
        for s in holders:
            received[s] += max(nbytes, 0) // len(holders)
    rest = sum(loads.values()) - sum(received.values())
    for s in received:
        received[s] += max(rest, 0) // max(len(received), 1)
    return received


def reference_reshard(
    c: NamespaceChunks,
    shard_zones: Mapping[str, frozenset[str]],
    rates: ReshardRates,
) -> ReshardRoute:
    """The route for collection `c` whose chunks carry their zones after the change: every
    chunk listed, or (a targeted read) only those outside their zone with `c.loads`."""
    sent = c.shard_loads(by_size=True)
    if c.loads is None:
        received = _placement(c, shard_zones)
    else:
        received = reference_placement_from_loads(c, sent, shard_zones)
    busiest, most = max(
        ((s, max(sent.get(s, 0), received.get(s, 0))) for s in set(sent) | set(received)),
        key=lambda kv: (kv[1], kv[0]),
        default=("", 0),
    )
    p = rates.phases
    cloning = most / rates.copy_rate
    catch_up = max(p.catch_up_floor_s, cloning * p.catch_up_share)
    seconds = max(cloning + catch_up, p.minimum_s) + p.critical_s
    storage = {s: int(b * STORAGE_FACTOR) for s, b in received.items()}
    stranded = sum(
        1
        for i in c.jumbo
        if c.zones[i] is not None and c.zones[i] not in shard_zones.get(c.shards[i], frozenset())
    )
    total = sum(sent.values())
    return ReshardRoute(c.ns, seconds, total, busiest, most, storage, True, stranded, p)
