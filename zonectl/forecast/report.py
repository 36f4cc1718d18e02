"""The forecast of time to compliance: per namespace and in total, the chunks and bytes that
must move, and when they will have moved by the balancer (rounds inside its window) and by
`apply --migrate --parallel N` (every namespace's moves in one queue, as apply runs them); plus
each donor shard's backlog (for a firehose window: the hot shard's bytes that belong to
cold) and when it drains. Pure: `now` and every assumption are passed in."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from zonectl.forecast.balancer import (
    BalancerOutcome,
    Layout,
    NamespaceChunks,
    balancer_finish,
    simulate_balancer,
    zone_holders,
)
from zonectl.forecast.balancer_window import BalancerWindow
from zonectl.forecast.burndown import BurnDown, make_burndown
from zonectl.forecast.drain import DrainForecast
from zonectl.forecast.eager import EagerOutcome, PendingMove, simulate_eager
from zonectl.forecast.finish_range import FinishRange, balancer_finish_range
from zonectl.forecast.learn import Learned
from zonectl.forecast.reshard import ReshardRoute
from zonectl.forecast.timing import CostModel

# Where the cost of a migration came from.
LEARNED, ASSUMED, FLAG = "learned", "assumed", "--copy-rate"
_NO_ZONES: frozenset[str] = frozenset()
# The balancer's rounds over some namespaces, under fixed assumptions.
Simulate = Callable[[Sequence[NamespaceChunks]], BalancerOutcome]
# When the balancer's rounds over one namespace alone end (None: never).
Finish = Callable[[NamespaceChunks], dt.datetime | None]
# One migration's seconds: (donor, recipient, bytes) -> seconds.
Cost = Callable[[str, str, int], float]


@dataclass(frozen=True)
class Assumptions:
    copy_rate: float  # bytes per second, per migration (the model's rate where none finer)
    parallel: int  # --migrate --parallel N
    window: BalancerWindow | None = None  # the balancer's active window, in its time zone
    tz_name: str = "UTC"
    balancer_enabled: bool = True
    by_data_size: bool = True  # 6.0+ balancer: loads by bytes; 5.0: by chunk counts
    model: CostModel | None = None  # None: the assumed fixed part + bytes at copy_rate
    source: str = ASSUMED  # LEARNED, ASSUMED or FLAG
    learned: Learned | None = None  # what config.changelog taught, or why it could not

    @property
    def cost(self) -> CostModel:
        return self.model if self.model is not None else CostModel(rate=self.copy_rate)


@dataclass(init=False, unsafe_hash=True, slots=True)
class NamespaceForecast:
    """One namespace's row. Equal, hashed and shown as a frozen dataclass, its fields Final
    (mypy refuses an assignment), with a plain __init__ (one per namespace: a frozen
    dataclass's costs an object.__setattr__ per field)."""

    ns: Final[str]
    chunks: Final[int]  # out-of-zone chunks to move
    bytes: Final[int]
    eager_s: Final[float]  # when its last move commits in apply --migrate's one queue
    balancer_s: Final[float | None]  # None: the balancer will not (off, noBalance, no shard)
    why_not: Final[str]

    def __init__(
        self,
        ns: str,
        chunks: int,
        bytes: int,
        eager_s: float,
        balancer_s: float | None,
        why_not: str = "",
    ) -> None:
        self.ns = ns
        self.chunks = chunks
        self.bytes = bytes
        self.eager_s = eager_s
        self.balancer_s = balancer_s
        self.why_not = why_not


@dataclass(frozen=True)
class Backlog:
    shard: str
    chunks: int
    bytes: int  # bytes on this shard that belong elsewhere
    balancer_drained: dt.datetime | None
    eager_drained_s: float


@dataclass(frozen=True)
class CollectionMoveForecast:
    """One moveCollection of the plan (timed by zonectl.forecast.collection_moves)."""

    ns: str
    from_shard: str
    to_shard: str
    bytes: int | None  # None: the plan could not size it (collStats did not answer)
    seconds: float


@dataclass(frozen=True)
class Forecast:
    now: dt.datetime
    assumptions: Assumptions
    namespaces: tuple[NamespaceForecast, ...]
    backlog: tuple[Backlog, ...]
    eager_s: float
    balancer_s: float | None
    notes: tuple[str, ...] = field(default=())
    burndown: tuple[BurnDown, ...] = ()  # bytes left over time, per route that finishes
    # moveCollection ops of the plan (zonectl.forecast.collection_moves), counted in the totals
    collections: tuple[CollectionMoveForecast, ...] = field(default=())
    # The third route per namespace: one reshardCollection to the same key (forecast/reshard).
    reshard: tuple[ReshardRoute, ...] = field(default=())
    # The balancer total's range where estimated sizes decide the night it ends in.
    balancer_range: FinishRange | None = None
    # Each shard the plan removes: its drain's time by each route (forecast/drain.py).
    drains: tuple[DrainForecast, ...] = field(default=())

    @property
    def chunks(self) -> int:
        return sum(n.chunks for n in self.namespaces)

    @property
    def bytes(self) -> int:
        return sum(n.bytes for n in self.namespaces)

    @property
    def eager_at(self) -> dt.datetime:
        return self.now + dt.timedelta(seconds=self.eager_s)

    @property
    def balancer_at(self) -> dt.datetime | None:
        if self.balancer_s is None:
            return None
        return self.now + dt.timedelta(seconds=self.balancer_s)


def pending_moves(
    c: NamespaceChunks,
    shard_zones: Mapping[str, frozenset[str]],
    holders: Mapping[str, tuple[str, ...]] | None = None,
) -> tuple[list[PendingMove], dict[str, int]]:
    """The out-of-zone chunks of `c` as moves, and the bytes of `c` per shard. `holders`:
    zone_holders(shard_zones), when the caller has it (computed once per layout)."""
    holders = zone_holders(shard_zones) if holders is None else holders
    loads: dict[str, int] = dict.fromkeys(shard_zones, 0)
    loads.update(c.loads if c.loads is not None else c.shard_loads(True))
    moves: list[PendingMove] = []
    for i, (shard, size, zone) in enumerate(zip(c.shards, c.sizes, c.zones, strict=True)):
        if zone is None or zone in shard_zones.get(shard, _NO_ZONES) or i in c.jumbo:
            continue
        if to := holders.get(zone):
            moves.append(PendingMove(c.ns, i, shard, to, size))
    return moves, loads


def make_forecast(
    colls: Sequence[NamespaceChunks],
    shard_zones: Mapping[str, frozenset[str]],
    assumptions: Assumptions,
    now: dt.datetime,
    *,
    no_balance: frozenset[str] = frozenset(),
    defragmenting: frozenset[str] = frozenset(),
    draining: Sequence[str] = (),
) -> Forecast:
    """The out-of-zone moves of `colls`, timed by apply --migrate's one queue and by the
    balancer (each namespace alone, then all it may move at once), with each donor's backlog.

    `defragmenting`: collections with `defragmentCollection: true`, which the balancer
    leaves out of its rebalancing rounds until the defragmentation ends
    (`canBalanceCollection`, balancer_chunk_selection_policy.cpp, 7.0+). `draining`:
    shards being drained (not in `shard_zones`), whose zoned chunks the balancer moves to
    their zone's shards (Layout)."""
    a = assumptions
    cost = _each_cost_once(a.cost.seconds)  # the simulations ask for a few costs many times
    simulate, finish = _balancer_simulation(shard_zones, a, now, cost, draining)
    queued, loads = _queue(colls, shard_zones)
    # Every namespace's moves in one queue, as apply --migrate runs them.
    every = [m for _, moves in queued for m in moves]
    eager = simulate_eager(every, loads, a.parallel, a.copy_rate, cost=cost)
    backlog = _backlog(every, eager)
    per_ns: list[NamespaceForecast] = []
    for c, moves in queued:
        balancer_s, why_not = _balancer_alone(c, a, finish, now, no_balance, defragmenting)
        per_ns.append(_namespace_forecast(c, moves, eager, balancer_s, why_not))
    held = no_balance | defragmenting
    movable = [c for c in colls if c.ns not in held]
    balancer = _balancer_together(per_ns, movable, a, simulate, now)
    total = sum(n.bytes for n in per_ns)
    curves = [make_burndown("migrate", total, eager.commits)] if per_ns else []
    if balancer.commits is not None:
        curves.append(make_burndown("balancer", total, balancer.commits))
    return Forecast(
        now=now,
        assumptions=a,
        namespaces=tuple(per_ns),
        backlog=tuple(
            Backlog(shard, int(v[0]), int(v[1]), balancer.drained.get(shard), v[2])
            for shard, v in sorted(backlog.items(), key=lambda kv: (-kv[1][1], kv[0]))
        ),
        eager_s=eager.seconds,
        balancer_s=balancer.seconds,
        balancer_range=balancer.finish_range,
        burndown=tuple(curves),
    )


def _each_cost_once(cost: Cost) -> Cost:
    """`cost`, each (donor, recipient, bytes) computed once: a cost model is a pure
    function of them, and 10,000 namespaces of a few sizes ask for a few costs."""
    known: dict[tuple[str, str, int], float] = {}

    def seconds(donor: str, recipient: str, nbytes: int) -> float:
        key = (donor, recipient, nbytes)
        found = known.get(key)
        if found is None:
            found = known[key] = cost(donor, recipient, nbytes)
        return found

    return seconds


def _balancer_simulation(
    shard_zones: Mapping[str, frozenset[str]],
    a: Assumptions,
    now: dt.datetime,
    cost: Cost,
    draining: Sequence[str] = (),
) -> tuple[Simulate, Finish]:
    """The balancer's rounds over some of the namespaces, and when they end for one alone,
    under the assumptions (the layout computed once for all of them) and `cost`."""
    layout = Layout(shard_zones, draining)

    def finish(c: NamespaceChunks) -> dt.datetime | None:
        return balancer_finish(
            c,
            layout,
            a.copy_rate,
            now,
            window=a.window,
            by_data_size=a.by_data_size,
            cost=cost,
        )

    def simulate(some: Sequence[NamespaceChunks]) -> BalancerOutcome:
        return simulate_balancer(
            some,
            shard_zones,
            a.copy_rate,
            now,
            window=a.window,
            by_data_size=a.by_data_size,
            cost=cost,
            layout=layout,
        )

    return simulate, finish


def _queue(
    colls: Sequence[NamespaceChunks], shard_zones: Mapping[str, frozenset[str]]
) -> tuple[list[tuple[NamespaceChunks, list[PendingMove]]], dict[str, dict[str, int]]]:
    """The namespaces with chunks to move, with their moves; every namespace's bytes per
    shard (namespace -> shard -> bytes), where the eager queue starts from."""
    queued: list[tuple[NamespaceChunks, list[PendingMove]]] = []
    loads: dict[str, dict[str, int]] = {}
    holders = zone_holders(shard_zones)
    for c in colls:
        moves, loads[c.ns] = pending_moves(c, shard_zones, holders)
        if moves:
            queued.append((c, moves))
    return queued, loads


def _backlog(every: Sequence[PendingMove], eager: EagerOutcome) -> dict[str, list[float]]:
    """shard -> [chunks, bytes, eager drained s]: what each donor holds that belongs
    elsewhere, and when apply --migrate's queue has taken its last chunk."""
    backlog: dict[str, list[float]] = {}
    for m in every:
        entry = backlog.setdefault(m.donor, [0, 0, 0.0])
        entry[0] += 1
        entry[1] += m.bytes
    for donor, seconds in eager.drained.items():
        backlog[donor][2] = seconds
    return backlog


def _balancer_alone(
    c: NamespaceChunks,
    a: Assumptions,
    finish: Finish,
    now: dt.datetime,
    no_balance: frozenset[str],
    defragmenting: frozenset[str],
) -> tuple[float | None, str]:
    """When the balancer alone would have moved this namespace's chunks (seconds from
    `now`), or None and why it will not."""
    if not a.balancer_enabled:
        return None, "the balancer is off"
    if c.ns in no_balance:
        return None, "balancing of this collection is off (noBalance)"
    if c.ns in defragmenting:
        return None, "it is being defragmented: the balancer moves none of it until that ends"
    finished = finish(c)
    if finished is None:
        return None, "a zone has no shard that can take its chunks"
    return (finished - now).total_seconds(), ""


def _namespace_forecast(
    c: NamespaceChunks,
    moves: Sequence[PendingMove],
    eager: EagerOutcome,
    balancer_s: float | None,
    why_not: str,
) -> NamespaceForecast:
    """The namespace's row: what it moves, when apply --migrate's queue commits its last
    chunk, when (or why not) the balancer would."""
    done_s = eager.finished.get(c.ns, eager.seconds)  # its last commit in the queue
    nbytes = sum([m.bytes for m in moves])
    return NamespaceForecast(c.ns, len(moves), nbytes, done_s, balancer_s, why_not)


@dataclass(frozen=True)
class _BalancerTotal:
    seconds: float | None = None  # None: not every namespace is the balancer's to move
    finish_range: FinishRange | None = None
    drained: Mapping[str, dt.datetime] = field(default_factory=dict)  # donor -> last commit
    commits: list[tuple[float, int]] | None = None  # its burn-down, when it finishes


def _balancer_together(
    per_ns: Sequence[NamespaceForecast],
    movable: Sequence[NamespaceChunks],
    a: Assumptions,
    simulate: Simulate,
    now: dt.datetime,
) -> _BalancerTotal:
    """The balancer over every namespace it may move, at once: when it ends, the range the
    estimated sizes leave, each donor's last commit. Nothing to move: done now."""
    if not per_ns:
        return _BalancerTotal(seconds=0.0)
    if not a.balancer_enabled or any(n.balancer_s is None for n in per_ns):
        return _BalancerTotal()
    together = simulate(movable)
    if together.finished is None:
        return _BalancerTotal()
    seconds = (together.finished - now).total_seconds()
    return _BalancerTotal(
        seconds,
        balancer_finish_range(movable, simulate, a.window, now, seconds),
        together.drained,
        [((t - now).total_seconds(), size) for t, size in together.commits],
    )
