"""How long the balancer takes to move every out-of-zone chunk home: its rounds simulated
over a cost model (timing.py).

A round (`Balancer::_mainThread`, mongo:src/mongo/db/s/balancer/balancer.cpp) starts only
inside the active window, picks per collection, shard by shard, the first chunk outside its
zone and sends it to the least loaded available shard of the zone (each shard in at most
one migration per round: `BalancerPolicy::balance`, reference §5.1/§5.3), waits for all of
them, then sleeps kShortBalanceRoundInterval (1 s) after a round that moved something, else
kBalanceRoundDefaultInterval (10 s). Only zone violations are modelled: balancing moves
inside a zone come after compliance.
"""

from __future__ import annotations

import datetime as dt
import operator
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zonectl.forecast.balancer_window import BalancerWindow
from zonectl.forecast.timing import copy_seconds

SHORT_INTERVAL_S = 1.0  # kShortBalanceRoundInterval
DEFAULT_INTERVAL_S = 10.0  # kBalanceRoundDefaultInterval
_SHORT = dt.timedelta(seconds=SHORT_INTERVAL_S)
_NO_ZONES: frozenset[str] = frozenset()
_SECONDS = operator.itemgetter(1)  # of a pick: (donor, seconds, bytes)


@dataclass
class NamespaceChunks:
    """One collection's chunks in key order: shard, bytes, zone (None: no zone). Either
    every chunk, or only those outside their zone with `loads`/`counts` giving the whole
    collection's bytes and chunks per shard (what a targeted read gives)."""

    ns: str
    shards: list[str]
    sizes: list[int]
    zones: list[str | None]
    jumbo: set[int] = field(default_factory=set)
    bounds: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = field(default_factory=list)
    loads: dict[str, int] | None = None  # bytes of the collection per shard
    counts: dict[str, int] | None = None  # chunks of the collection per shard
    # The chunk size in effect (after the plan): since 6.0.3 a balancer migration is a
    # moveRange without `max`, and the donor cuts about this much off a larger chunk
    # (reference balancer-settings §6.1 step 4). None: chunks move whole.
    max_chunk_bytes: int | None = None
    # Indices whose size is an estimate (their shard's average bytes per chunk), and each
    # measured chunk's (bytes, that average): the sample size_spread draws from.
    estimated: set[int] = field(default_factory=set)
    samples: list[tuple[int, int]] = field(default_factory=list)

    def shard_loads(self, by_size: bool) -> dict[str, int]:
        """Bytes (or chunks) of the collection per shard, before any move."""
        given = self.loads if by_size else self.counts
        if given is not None:
            return dict(given)
        out: dict[str, int] = {}
        for shard, size in zip(self.shards, self.sizes, strict=True):
            out[shard] = out.get(shard, 0) + (size if by_size else 1)
        return out

    def outside(self, shard_zones: Mapping[str, frozenset[str]]) -> list[int]:
        """Indices of the chunks on a shard outside their zone."""
        return [
            i
            for i, (shard, zone) in enumerate(zip(self.shards, self.zones, strict=True))
            if zone is not None and zone not in shard_zones.get(shard, frozenset())
        ]


@dataclass(frozen=True)
class BalancerOutcome:
    finished: dt.datetime | None  # None: some chunk can never move (no shard has its zone)
    moved: int
    rounds: int
    drained: dict[str, dt.datetime] = field(default_factory=dict)  # donor -> its last commit
    # Each migration's commit and bytes, in time order: the burn-down (bytes left over time).
    commits: list[tuple[dt.datetime, int]] = field(default_factory=list)


class Layout:
    """What the simulations need of the shards and zones, computed once per layout (not per
    namespace): the shards in config.shards order and each zone's shards in that order.

    `draining`: shards being drained, which hold chunks but take none. The balancer looks
    at them first (`BalancerPolicy::balance` step 1, balancer_policy.cpp: a draining shard's
    chunk goes to the least loaded shard of its zone), so they come first; a chunk in no
    zone on one is left to the drain's own forecast (forecast/drain.py)."""

    def __init__(
        self, shard_zones: Mapping[str, frozenset[str]], draining: Sequence[str] = ()
    ) -> None:
        self.shard_zones = shard_zones
        donors = tuple(s for s in draining if s not in shard_zones)
        self.order = (*donors, *shard_zones)  # draining first, then config.shards order
        self.holders = zone_holders(shard_zones)
        self.zeros = dict.fromkeys(self.order, 0)


def zone_holders(shard_zones: Mapping[str, frozenset[str]]) -> dict[str, tuple[str, ...]]:
    """Each zone's shards, in config.shards order (a zone no shard has: absent)."""
    out: dict[str, tuple[str, ...]] = {}
    for zone in sorted({z for zones in shard_zones.values() for z in zones}):
        out[zone] = tuple(s for s, zones in shard_zones.items() if zone in zones)
    return out


class _Collection:
    """A collection's state during the simulation: loads and out-of-zone chunks per shard."""

    __slots__ = ("by_size", "c", "cap", "left", "load", "sizes", "violators")

    def __init__(self, c: NamespaceChunks, layout: Layout, by_size: bool) -> None:
        self.c = c
        self.by_size = by_size
        self.sizes = list(c.sizes)  # what is left of each chunk (cut by chunk size)
        self.cap = c.max_chunk_bytes if by_size else None
        self.load: dict[str, int] = dict(layout.zeros)
        given = c.loads if by_size else c.counts
        self.load.update(given if given is not None else c.shard_loads(by_size))
        self.violators: dict[str, list[int]] = {}
        self.left = 0  # kept as picks are made
        shard_zones, none, jumbo = layout.shard_zones, _NO_ZONES, c.jumbo
        for i, (shard, zone) in enumerate(zip(c.shards, c.zones, strict=True)):
            if zone is not None and zone not in shard_zones.get(shard, none) and i not in jumbo:
                self.violators.setdefault(shard, []).append(i)
                self.left += 1

    def round(
        self,
        layout: Layout,
        available: set[str],
        seconds_for: Callable[[str, str, int], float],
    ) -> list[tuple[str, float, int]]:
        """This round's zone-violation picks: (donor, seconds, bytes) of each migration."""
        started: list[tuple[str, float, int]] = []
        if not self.left:
            return started
        load = self.load  # every shard of the layout: `get` never misses
        zones, holders_of, by_shard = self.c.zones, layout.holders, self.violators
        for shard in layout.order:
            violators = by_shard.get(shard)
            if not violators or shard not in available or len(available) < 2:
                continue
            for pos, i in enumerate(violators):
                zone = zones[i] or ""  # a violator is in a zone: never ""
                to = None  # the available holder with the least load, first of equals
                for s in holders_of.get(zone, ()):
                    if s in available and (to is None or load[s] < load[to]):
                        to = s
                if to is None:
                    continue  # no recipient this round (or ever): warning 21892
                available.discard(shard)
                available.discard(to)
                size = self.sizes[i]
                if self.cap and size > self.cap:  # one chunk size cut off; the rest stays
                    size = self.cap
                    self.sizes[i] -= size
                else:
                    del violators[pos]
                    self.left -= 1
                started.append((shard, seconds_for(shard, to, size), size))
                step = size if self.by_size else 1
                load[shard] -= step
                load[to] += step
                break
        return started


def simulate_balancer(
    colls: Sequence[NamespaceChunks],
    shard_zones: Mapping[str, frozenset[str]],
    rate: float,
    now: dt.datetime,
    *,
    window: BalancerWindow | None = None,
    by_data_size: bool = True,
    cost: Callable[[str, str, int], float] | None = None,
    max_rounds: int = 1_000_000,
    layout: Layout | None = None,
) -> BalancerOutcome:
    """Simulate rounds from `now` until no chunk sits outside its zone; each migration costs
    `cost(donor, recipient, bytes)` seconds, by default the fixed part + bytes at `rate`.
    `layout`: Layout(shard_zones), when the caller simulates many times over one layout."""
    seconds_for = cost or (lambda _d, _r, n: copy_seconds(n, rate))
    layout = layout or Layout(shard_zones)
    # The collections with chunks left, in order; one that is done drops out (a deque: a
    # round looks at the first few, and 10,000 collections make 10,000 rounds, so neither
    # a rescan of the whole nor a shift of the rest per round).
    state = deque([s for c in colls if (s := _Collection(c, layout, by_data_size)).left])
    t, moved, rounds = now, 0, 0
    # Each migration's length as a timedelta, made once per length (a few at 10,000).
    deltas: dict[float, dt.timedelta] = {}
    drained: dict[str, dt.datetime] = {}
    commits: list[tuple[dt.datetime, int]] = []
    while rounds < max_rounds:
        if not state:
            return BalancerOutcome(t if moved else now, moved, rounds, drained, commits)
        if window is not None and not window.contains(t):
            t = window.next_open(t)
        rounds += 1
        available = set(layout.order)
        started: list[tuple[str, float, int]] = []
        seen = 0
        for s in state:  # collections in order; none can start once < 2 shards are free
            if len(available) < 2:
                break
            seen += 1
            started += s.round(layout, available, seconds_for)
        # only the collections this round looked at can have finished
        if seen == 1:  # most rounds, at 10,000 collections of a few chunks each
            if not state[0].left:
                state.popleft()
        else:
            looked = [state.popleft() for _ in range(seen)]
            state.extendleft(reversed([s for s in looked if s.left]))
        if not started:
            return BalancerOutcome(None, moved, rounds, drained, commits)  # stuck
        started.sort(key=_SECONDS)  # stable: equal times keep the order of the picks
        commit = t
        for donor, seconds, size in started:
            delta = deltas.get(seconds)
            if delta is None:
                delta = deltas[seconds] = dt.timedelta(seconds=seconds)
            drained[donor] = commit = t + delta
            commits.append((commit, size))
        moved += len(started)
        # The round waits for all its migrations; the finish is the last commit, the next
        # round starts kShortBalanceRoundInterval after it.
        if not state:
            return BalancerOutcome(commit, moved, rounds, drained, commits)
        t = commit + _SHORT
    return BalancerOutcome(None, moved, rounds, drained, commits)


def balancer_finish(
    c: NamespaceChunks,
    layout: Layout,
    rate: float,
    now: dt.datetime,
    *,
    window: BalancerWindow | None = None,
    by_data_size: bool = True,
    cost: Callable[[str, str, int], float] | None = None,
    max_rounds: int = 1_000_000,
) -> dt.datetime | None:
    """simulate_balancer([c], ...).finished, without what only the outcome's other fields
    need (each commit's instant, the donors' last commits): the same rounds of the one
    collection, for the forecast's per-namespace figure (tests/forecast_pure hold the two
    to the same answers)."""
    seconds_for = cost or (lambda _d, _r, n: copy_seconds(n, rate))
    state = _Collection(c, layout, by_data_size)
    if not state.left:
        return now
    t, rounds = now, 0
    while rounds < max_rounds:
        if window is not None and not window.contains(t):
            t = window.next_open(t)
        rounds += 1
        started = state.round(layout, set(layout.order), seconds_for)
        if not started:
            return None  # stuck
        end = t + dt.timedelta(seconds=max(m[1] for m in started))
        if not state.left:
            return end
        t = end + _SHORT
    return None
