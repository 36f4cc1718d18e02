"""How long draining one shard takes, by each route (reference shard-lifecycle.md §3): the
balancer, `apply --migrate`, and resharding with forceRedistribution, each with the unsharded
data's moves. Pure: the drain, the assumptions and `now` are passed in (plan and status share it).

- The balancer moves the draining shard's chunks one migration at a time (a shard takes part
  in one migration at a time: each round, the draining shard gives one chunk), each costing
  the cost model's time (timing.py), `balancerMigrationsThrottlingMs` between migrations
  (SERVER-75082), starting only inside its window. Each balancer migration moves at most the
  chunk size (6.0.3+, moveRange without max). Jumbo chunks stay, whatever
  attemptToBalanceJumboChunks says; balancer off: never.
- `apply --migrate` moves the chunks itself: the draining shard is the donor of every move,
  so one at a time (eager.py's Dispatcher), no throttle, no window; jumbo chunks only with
  --force-jumbo.
- Resharding (forceRedistribution) every collection on the shard to its own key: one at a
  time in the cluster, each from all donors to all recipients at once (reshard.py);
  config.system.sessions, which cannot be resharded, migrates meanwhile.
- Unsharded data: a moveCollection per unsharded collection (at least ~5 min each, one at a
  time, alongside the chunk migrations) and a movePrimary per database, after them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.balancer_window import BalancerWindow
from zonectl.forecast.eager import PendingMove, simulate_eager
from zonectl.forecast.reshard import ReshardRates, forecast_reshard
from zonectl.forecast.timing import CostModel
from zonectl.model.shard_lifecycle import ShardDrain

THROTTLE_S = 1.0  # balancerMigrationsThrottlingMs default (reference balancer-settings §3.5)
UNKNOWN_CHUNK_BYTES = 64 * 1024 * 1024  # a chunk of unknown size: half the 128 MB default


@dataclass(frozen=True)
class DrainAssumptions:
    """What the drain forecast assumes besides the drain itself."""

    cost: CostModel  # one migration's cost (learned, --copy-rate, or assumed)
    source: str = "assumed"  # "learned", "assumed" or "--copy-rate"
    recipients: tuple[str, ...] = ()  # shards that may take its data (not draining)
    balancer_enabled: bool = True
    window: BalancerWindow | None = None  # the balancer's window in force, if any
    throttle_s: float = THROTTLE_S  # balancerMigrationsThrottlingMs (a config server parameter)
    force_jumbo: bool = False  # apply --migrate --force-jumbo
    max_chunk_bytes: int | None = None  # what one balancer migration moves at most
    chunk_caps: Mapping[str, int] = field(default_factory=dict)  # per namespace, if its own
    reshard: ReshardRates | None = None  # None: no forceRedistribution (before 7.2)
    # Bytes per shard of each collection (namespace -> shard -> bytes), for the reshard
    # route; a collection missing here is assumed spread evenly over every shard.
    loads: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class DrainRoute:
    """One route's time from `now`; None: it never finishes (`why_not`). Then `rest_s` is
    what the moves it can make take: the balancer's, every chunk but the jumbo ones;
    --migrate's, every chunk with --force-jumbo."""

    seconds: float | None
    why_not: str = ""
    migrations: int = 0  # chunk migrations (or reshardings) it runs
    rest_s: float | None = None


@dataclass(frozen=True)
class DrainForecast:
    shard: str
    now: dt.datetime
    source: str  # where the cost of a migration came from
    chunks: int
    bytes: int | None  # None: some collection's bytes are unknown (sizes assumed)
    jumbo: int
    collection_moves: int  # moveCollection of its unsharded collections
    primaries: int  # movePrimary of the databases it is primary of
    unsharded_s: float  # those moves, one after another
    balancer: DrainRoute
    migrate: DrainRoute
    reshard: DrainRoute | None  # None: not available on this version
    window: str = ""  # the balancer's window, when it has one ("window 01:00-05:00")
    notes: tuple[str, ...] = ()

    @property
    def reshard_named(self) -> bool:
        """Resharding is named where it is faster than both other routes, or where they
        never finish (jumbo chunks)."""
        r = self.reshard
        if r is None or r.seconds is None:
            return False
        others = [s for s in (self.balancer.seconds, self.migrate.seconds) if s is not None]
        return not others or r.seconds < min(others)

    def at(self, seconds: float | None) -> dt.datetime | None:
        return None if seconds is None else self.now + dt.timedelta(seconds=seconds)


def forecast_drain(drain: ShardDrain, a: DrainAssumptions, now: dt.datetime) -> DrainForecast:
    """The time of each route for `drain`, from `now`."""
    sizes, notes = _chunk_sizes(drain, a)
    unsharded_s = _unsharded_seconds(drain, a)
    balancer = _with_unsharded(_balancer(drain, sizes, a, now), unsharded_s)
    migrate = _with_unsharded(_migrate(drain, sizes, a), unsharded_s)
    reshard = None
    if a.reshard is not None:
        reshard = _reshard(drain, sizes, a, a.reshard, unsharded_s)
        if any(c.namespace not in a.loads for c in drain.collections):
            notes.append("the reshard route assumes each collection spread evenly over the shards")
    return DrainForecast(
        shard=drain.shard,
        now=now,
        source=a.source,
        chunks=drain.chunks,
        bytes=drain.bytes,
        jumbo=len(drain.jumbo),
        collection_moves=len(drain.unsharded),
        primaries=len(drain.databases),
        unsharded_s=unsharded_s,
        balancer=balancer,
        migrate=migrate,
        reshard=reshard,
        window=a.window.describe() if a.window is not None else "",
        notes=tuple(notes),
    )


# A chunk to move: namespace, its index, bytes, jumbo.
Chunk = tuple[str, int, int, bool]


def _chunk_sizes(drain: ShardDrain, a: DrainAssumptions) -> tuple[list[Chunk], list[str]]:
    """Each chunk on the shard with its bytes: a collection's bytes shared evenly by its
    chunks (a jumbo chunk's own bytes where known, taken out first); unknown bytes: the
    shard's estimated remaining bytes (8.3) shared by chunk count, else half the chunk
    size each."""
    notes: list[str] = []
    unknown_each = (a.max_chunk_bytes or 2 * UNKNOWN_CHUNK_BYTES) // 2
    unknown = [c for c in drain.collections if c.bytes is None]
    if unknown:
        known = sum(c.bytes or 0 for c in drain.collections)
        left = drain.estimated_remaining_bytes
        count = sum(c.chunks for c in unknown)
        if left is not None and count:
            unknown_each = max(left - known, 0) // count
            notes.append("chunk sizes from the shard's estimatedRemainingBytes")
        else:
            notes.append(
                f"the size of {len(unknown)} collection(s) is unknown: each chunk counted "
                "at half the chunk size"
            )
    out: list[Chunk] = []
    for c in drain.collections:
        jumbo_known = sum(j.bytes or 0 for j in c.jumbo)
        plain = max(c.chunks - len(c.jumbo), 0)
        shared = plain + sum(1 for j in c.jumbo if j.bytes is None)  # an even share each
        each = unknown_each if c.bytes is None else max(c.bytes - jumbo_known, 0) // max(shared, 1)
        for i, j in enumerate(c.jumbo):
            out.append((c.namespace, i, j.bytes if j.bytes is not None else each, True))
        out += [(c.namespace, len(c.jumbo) + i, each, False) for i in range(plain)]
    return out, notes


def _jumbo(n: int) -> str:
    return f"{n} jumbo chunk{'' if n == 1 else 's'}"


def _recipient(a: DrainAssumptions, i: int) -> str:
    return a.recipients[i % len(a.recipients)]


def _balancer(
    drain: ShardDrain, sizes: Sequence[Chunk], a: DrainAssumptions, now: dt.datetime
) -> DrainRoute:
    """One migration per round off the draining shard, throttled, inside the window."""
    if not a.balancer_enabled and sizes:
        return DrainRoute(None, "the balancer is off: nothing drains without --migrate")
    if not a.recipients and sizes:
        return DrainRoute(None, "no shard can take its chunks (every other one is draining)")
    pieces: list[int] = []
    for ns, _, size, jumbo in sizes:
        # The draining step of BalancerPolicy::balance skips a jumbo chunk whatever
        # attemptToBalanceJumboChunks says (mongo:src/mongo/db/s/balancer/balancer_policy.cpp;
        # SERVER-86055, open); the sandbox answers the same (docs/sandbox-fidelity.md).
        if jumbo:
            continue
        cap = a.chunk_caps.get(ns, a.max_chunk_bytes)
        # a jumbo chunk cannot be split: it moves whole
        count = max(1, math.ceil(size / cap)) if cap and not jumbo else 1
        pieces += [size // count] * count
    t, step = now, 0
    for n, size in enumerate(pieces):
        if n:
            t += dt.timedelta(seconds=a.throttle_s)
        if a.window is not None and not a.window.contains(t):
            t = a.window.next_open(t)
        t += dt.timedelta(seconds=a.cost.seconds(drain.shard, _recipient(a, n), size))
        step += 1
    seconds = (t - now).total_seconds()
    stuck = sum(1 for s in sizes if s[3])
    if stuck:
        why = (
            f"{_jumbo(stuck)} {'stays' if stuck == 1 else 'stay'}: the balancer never moves a "
            "jumbo chunk off a draining shard; split them, or take apply --migrate "
            "--force-jumbo or resharding"
        )
        return DrainRoute(None, why, step, seconds)
    return DrainRoute(seconds, migrations=step)


def _migrate(drain: ShardDrain, sizes: Sequence[Chunk], a: DrainAssumptions) -> DrainRoute:
    """apply --migrate: every chunk from the draining shard, one at a time (eager.py)."""
    if not a.recipients and sizes:
        return DrainRoute(None, "no shard can take its chunks (every other one is draining)")
    moves = [
        PendingMove(ns, i, drain.shard, a.recipients, size)
        for ns, i, size, jumbo in sizes
        if a.force_jumbo or not jumbo
    ]
    loads = {
        ns: {r: int(a.loads.get(ns, {}).get(r, 0)) for r in a.recipients}
        for ns in {m.ns for m in moves}
    }
    out = simulate_eager(moves, loads, max(1, len(a.recipients)), a.cost.rate, cost=a.cost.seconds)
    stuck = sum(1 for s in sizes if s[3]) if not a.force_jumbo else 0
    if stuck:
        forced = [PendingMove(ns, i, drain.shard, a.recipients, n) for ns, i, n, _ in sizes]
        whole = simulate_eager(forced, loads, len(a.recipients), a.cost.rate, cost=a.cost.seconds)
        why = f"{_jumbo(stuck)} {'stops' if stuck == 1 else 'stop'} it: pass --force-jumbo"
        return DrainRoute(None, why, out.moved, whole.seconds)
    return DrainRoute(out.seconds, migrations=out.moved)


def _reshard(
    drain: ShardDrain,
    sizes: Sequence[Chunk],
    a: DrainAssumptions,
    rates: ReshardRates,
    unsharded_s: float,
) -> DrainRoute:
    """Each collection resharded to its own key onto the other shards, one after another
    (one resharding at a time in a cluster), then the unsharded moves (a moveCollection is
    a resharding too). config.system.sessions cannot be resharded: its chunks migrate
    meanwhile, one at a time (`_migrate`)."""
    if not a.recipients:
        return DrainRoute(None, "no shard to reshard onto")
    on_shard: dict[str, int] = {}
    for ns, _, size, _ in sizes:
        if not ns.startswith("config."):
            on_shard[ns] = on_shard.get(ns, 0) + size
    onto = {r: frozenset[str]() for r in a.recipients}
    total = 0.0
    for ns, nbytes in on_shard.items():
        loads = dict(a.loads.get(ns) or dict.fromkeys(a.recipients, nbytes))
        loads[drain.shard] = nbytes
        coll = NamespaceChunks(ns, [], [], [], loads=loads)
        total += forecast_reshard(coll, onto, rates).seconds
    internal = [c for c in sizes if c[0].startswith("config.")]
    forced = dataclasses.replace(a, force_jumbo=True)
    beside = _migrate(drain, internal, forced).seconds or 0.0
    return DrainRoute(max(total + unsharded_s, beside), migrations=len(on_shard))


def _unsharded_seconds(drain: ShardDrain, a: DrainAssumptions) -> float:
    """moveCollection of each unsharded collection (size unknown: its floor, or the learned
    median), one at a time; then movePrimary of each database (metadata: the fixed part)."""
    to = a.recipients[0] if a.recipients else ""
    moves = sum(a.cost.move_collection_seconds(drain.shard, to, 0) for _ in drain.unsharded)
    return moves + len(drain.databases) * a.cost.fixed_s


def _with_unsharded(route: DrainRoute, unsharded_s: float) -> DrainRoute:
    """The unsharded moves run alongside the chunk migrations (they take no place in the
    active-migrations registry): the route ends with the later of the two."""
    if route.seconds is None:
        rest = None if route.rest_s is None else max(route.rest_s, unsharded_s)
        return DrainRoute(None, route.why_not, route.migrations, rest)
    return DrainRoute(max(route.seconds, unsharded_s), route.why_not, route.migrations)
