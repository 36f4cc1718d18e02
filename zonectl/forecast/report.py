"""The forecast of time to compliance: per namespace and in total, the chunks and bytes that
must move, and when they will have moved by the balancer (rounds inside its window) and by
`apply --migrate --parallel N` (every namespace's moves in one queue, as apply runs them); plus
each donor shard's backlog (for a firehose window: the hot shard's bytes that belong to
cold) and when it drains. Pure: `now` and every assumption are passed in."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from zonectl.forecast.balancer import BalancerOutcome, NamespaceChunks, simulate_balancer
from zonectl.forecast.balancer_window import BalancerWindow
from zonectl.forecast.burndown import BurnDown, make_burndown
from zonectl.forecast.eager import PendingMove, simulate_eager
from zonectl.forecast.finish_range import FinishRange, balancer_finish_range
from zonectl.forecast.learn import Learned
from zonectl.forecast.reshard import ReshardRoute
from zonectl.forecast.timing import CostModel

# Where the cost of a migration came from.
LEARNED, ASSUMED, FLAG = "learned", "assumed", "--copy-rate"


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


@dataclass(frozen=True)
class NamespaceForecast:
    ns: str
    chunks: int  # out-of-zone chunks to move
    bytes: int
    eager_s: float  # when its last move commits in apply --migrate's one queue
    balancer_s: float | None  # None: the balancer will not do it (off, noBalance, no shard)
    why_not: str = ""


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


def make_forecast(
    colls: Sequence[NamespaceChunks],
    shard_zones: Mapping[str, frozenset[str]],
    assumptions: Assumptions,
    now: dt.datetime,
    *,
    no_balance: frozenset[str] = frozenset(),
    defragmenting: frozenset[str] = frozenset(),
) -> Forecast:
    """`defragmenting`: collections with `defragmentCollection: true`, which the balancer
    leaves out of its rebalancing rounds until the defragmentation ends
    (`canBalanceCollection`, balancer_chunk_selection_policy.cpp, 7.0+)."""
    a = assumptions

    def simulate(some: Sequence[NamespaceChunks]) -> BalancerOutcome:
        return simulate_balancer(
            some,
            shard_zones,
            a.copy_rate,
            now,
            window=a.window,
            by_data_size=a.by_data_size,
            cost=a.cost.seconds,
        )

    per_ns: list[NamespaceForecast] = []
    backlog: dict[str, list[float]] = {}  # shard -> [chunks, bytes, eager drained s]
    queued: list[tuple[NamespaceChunks, list[PendingMove]]] = []
    loads: dict[str, dict[str, int]] = {}
    for c in colls:
        moves, loads[c.ns] = pending_moves(c, shard_zones)
        if moves:
            queued.append((c, moves))
    # Every namespace's moves in one queue, as apply --migrate runs them.
    every = [m for _, moves in queued for m in moves]
    eager = simulate_eager(every, loads, a.parallel, a.copy_rate, cost=a.cost.seconds)
    for m in every:
        entry = backlog.setdefault(m.donor, [0, 0, 0.0])
        entry[0] += 1
        entry[1] += m.bytes
    for donor, seconds in eager.drained.items():
        backlog[donor][2] = seconds
    for c, moves in queued:
        why = ""
        balancer_s: float | None = None
        if not a.balancer_enabled:
            why = "the balancer is off"
        elif c.ns in no_balance:
            why = "balancing of this collection is off (noBalance)"
        elif c.ns in defragmenting:
            why = "it is being defragmented: the balancer moves none of it until that ends"
        else:
            alone = simulate([c])
            if alone.finished is None:
                why = "a zone has no shard that can take its chunks"
            else:
                balancer_s = (alone.finished - now).total_seconds()
        done_s = eager.finished.get(c.ns, eager.seconds)  # its last commit in the queue
        nbytes = sum(m.bytes for m in moves)
        per_ns.append(NamespaceForecast(c.ns, len(moves), nbytes, done_s, balancer_s, why))
    eager_total, eager_commits = eager.seconds, eager.commits
    balancer_total: float | None = None
    finish_range: FinishRange | None = None
    drained: dict[str, dt.datetime] = {}
    total = sum(n.bytes for n in per_ns)
    curves = [make_burndown("migrate", total, eager_commits)] if per_ns else []
    movable = [c for c in colls if c.ns not in no_balance | defragmenting]
    if per_ns and a.balancer_enabled and all(n.balancer_s is not None for n in per_ns):
        together = simulate(movable)
        if together.finished is not None:
            balancer_total = (together.finished - now).total_seconds()
            finish_range = balancer_finish_range(movable, simulate, a.window, now, balancer_total)
            drained = together.drained
            commits = [((t - now).total_seconds(), size) for t, size in together.commits]
            curves.append(make_burndown("balancer", total, commits))
    elif not per_ns:
        balancer_total = 0.0
    return Forecast(
        now=now,
        assumptions=a,
        namespaces=tuple(per_ns),
        backlog=tuple(
            Backlog(shard, int(v[0]), int(v[1]), drained.get(shard), v[2])
            for shard, v in sorted(backlog.items(), key=lambda kv: (-kv[1][1], kv[0]))
        ),
        eager_s=eager_total,
        balancer_s=balancer_total,
        balancer_range=finish_range,
        burndown=tuple(curves),
    )
