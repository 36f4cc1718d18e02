"""The time-to-compliance forecast of `plan` and `status`: out-of-zone chunks read where the
change is (sized by zonectl.mongo.chunk_sizes, the one size source) and the cost model
learned from config.changelog, fed to zonectl.forecast (pure)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.balancer_day_windows import DayWindows
from zonectl.forecast.balancer_window import ActiveWindow, BalancerWindow, parse_hhmm
from zonectl.forecast.drain import DrainAssumptions, forecast_drain
from zonectl.forecast.eager import default_parallel
from zonectl.forecast.inputs import Range
from zonectl.forecast.learn import choose_model
from zonectl.forecast.report import Assumptions, Forecast, make_forecast
from zonectl.forecast.reshard import ReshardRates, routes_for
from zonectl.forecast.settings import chunk_size_notes
from zonectl.forecast.size_spread import spread_estimates
from zonectl.forecast.units import DEFAULT_COPY_RATE
from zonectl.model.cluster import ClusterState, feature_release
from zonectl.model.shard_lifecycle import ShardDrain
from zonectl.mongo.changelog_read import read_learned
from zonectl.mongo.chunk_sizes import ChunkSizes
from zonectl.mongo.forecast_read import RangeKey, ZoneHolders, read_namespace_chunks
from zonectl.plan.ops import Op
from zonectl.plan.shard_ops import RemoveShard


@dataclass(frozen=True)
class ForecastFlags:
    copy_rate: float
    parallel: int | None
    tz: dt.tzinfo
    tz_name: str
    tz_given: bool = False  # --balancer-tz was given: it wins over the policy's
    rate_given: bool = False  # --copy-rate was passed: it overrides the learned rate


def make_window(
    window: Mapping[str, str] | None,
    flags: ForecastFlags,
    day_windows: Sequence[Mapping[str, str]] = (),
) -> BalancerWindow | None:
    """The window in force: day-of-week windows (8.3+, when the caller found them in force)
    replace activeWindow, which MongoDB then ignores (§1.4)."""
    if day_windows:
        try:
            return DayWindows.parse(day_windows, flags.tz)
        except (KeyError, ValueError):
            return None  # as below: a window the server cannot parse either
    if not window:
        return None
    try:
        return ActiveWindow(parse_hhmm(window["start"]), parse_hhmm(window["stop"]), flags.tz)
    except (KeyError, ValueError):
        return None  # a window the server cannot parse either: it balances all day (§2.5)


def read_forecast(
    sizes: ChunkSizes,
    ranges: Mapping[str, Iterable[Range]],
    shard_zones: Mapping[str, frozenset[str]],
    flags: ForecastFlags,
    *,
    now: dt.datetime,
    window: Mapping[str, str] | None,
    balancer_enabled: bool,
    shards: Sequence[str],
    day_windows: Sequence[Mapping[str, str]] = (),
    changed: Mapping[str, Collection[RangeKey]] | None = None,
    no_balance: frozenset[str] = frozenset(),
    rezoned: frozenset[str] = frozenset(),
    defragmenting: frozenset[str] = frozenset(),
) -> Forecast:
    """Read each namespace's out-of-zone chunks where the change is (zonectl.mongo.
    forecast_read: the `changed` ranges one by one, the others by indexed counts), sized
    by `sizes` (the one size source the impact line shares), then forecast (pure) from
    `now`. `shards`: every shard, draining ones too. The reshard route is forecast for
    namespaces with data to move and for `rezoned` ones (a zone of theirs gains or loses a
    shard: resharding spreads them at once)."""
    wanted = {ns: list(rs) for ns, rs in ranges.items()}
    sizes.read_collections(list(wanted))
    sizes.prepare(list(wanted))
    sizes.batch.prefetch(b for ns in wanted if (b := sizes.chunk_filter(ns)) is not None)

    holders_of = ZoneHolders(shard_zones)  # once for every namespace
    changes = changed or {}

    def read() -> list[NamespaceChunks]:
        found = (
            read_namespace_chunks(
                sizes, ns, rs, shard_zones, shards, changes.get(ns, ()), holders_of=holders_of
            )
            for ns, rs in wanted.items()
        )
        return [coll for coll in found if coll is not None]

    colls = sizes.batch.replay(read)  # every namespace's chunk reads in a few aggregates
    # Estimated chunks spread like the measured sample: a round lasts its largest migration.
    colls, sizes.tally.spread_like = spread_estimates(colls)
    learned = read_learned(sizes.conn)
    model, source = choose_model(
        learned, flags.copy_rate if flags.rate_given else None, float(DEFAULT_COPY_RATE)
    )
    assumptions = Assumptions(
        copy_rate=model.rate,
        model=model,
        source=source,
        learned=learned,
        parallel=flags.parallel or default_parallel(len(shard_zones)),
        window=make_window(window, flags, day_windows),
        tz_name=flags.tz_name,
        balancer_enabled=balancer_enabled,
        by_data_size=sizes.major >= 6,
    )
    forecast = make_forecast(
        colls,
        shard_zones,
        assumptions,
        now,
        no_balance=no_balance,
        defragmenting=defragmenting,
        draining=[s for s in shards if s not in shard_zones],  # config.shards order
    )
    planned = sizes.planned_mb is not None or bool(sizes.planned_ns_mb)
    moving = {n.ns for n in forecast.namespaces}
    cut = chunk_size_notes([c for c in colls if c.ns in moving], planned)
    forecast = dataclasses.replace(forecast, notes=(*forecast.notes, *cut))
    features = feature_release(sizes.conn.version, sizes.conn.fcv) or (7, 0)
    routes = routes_for(
        [c for c in colls if c.ns in moving or c.ns in rezoned],
        shard_zones,
        # the copy rate and the phases learned from config.changelog (or assumed)
        ReshardRates(model.rate, learned.reshard_phases),
        available=features >= (7, 2),  # forceRedistribution, also at the cluster's FCV
    )
    forecast = dataclasses.replace(forecast, reshard=tuple(routes[ns] for ns in sorted(routes)))
    said = sizes.tally.describe()
    return dataclasses.replace(forecast, notes=(*forecast.notes, said)) if said else forecast


def with_drains(
    forecast: Forecast,
    drains: Sequence[ShardDrain],
    actual: ClusterState,
    sizes: ChunkSizes,
    ops: Sequence[Op] = (),
) -> Forecast:
    """`forecast` with the time of each drain by each route (zonectl.forecast.drain), under
    the forecast's cost model, window and balancer switch; the shards that take the data
    are the ones neither draining nor being removed."""
    drains = [d for d in drains if not d.empty]
    if not drains:
        return forecast
    # Their collections' entries (chunk sizes) in one find, not one per collection.
    sizes.read_collections(sorted({c.namespace for d in drains for c in d.collections}))
    leaving = {d.shard for d in drains}
    recipients = tuple(s.id for s in actual.shards if not s.draining and s.id not in leaving)
    out = tuple(
        forecast_drain(
            d, drain_assumptions(forecast, d, actual, sizes, recipients, ops), forecast.now
        )
        for d in drains
    )
    return dataclasses.replace(forecast, drains=out)


def drains_of(ops: Sequence[Op]) -> list[ShardDrain]:
    """What each removal of the plan still has to move."""
    return [op.drain for op in ops if isinstance(op, RemoveShard) and op.step != "commit"]


def drain_assumptions(
    forecast: Forecast,
    drain: ShardDrain,
    actual: ClusterState,
    sizes: ChunkSizes,
    recipients: tuple[str, ...],
    ops: Sequence[Op] = (),
) -> DrainAssumptions:
    """The drain's assumptions: the forecast's, the chunk size of its collections, and their
    bytes per shard (for the reshard route). balancerMigrationsThrottlingMs is a config
    server parameter zonectl does not read: its default (1 s) is assumed. No balancer
    setting moves a jumbo chunk off a draining shard (forecast/drain.py)."""
    a = forecast.assumptions
    names = [c.namespace for c in drain.collections]
    loads = {ns: dict(b) for ns in names if (b := sizes.shard_bytes(ns)) is not None}
    # each collection's own (config.system.sessions has a small one of its own)
    caps = {ns: sizes.move_cap(ns) for ns in names} if sizes.by_data_size else {}
    features = feature_release(actual.version, actual.fcv) or (7, 0)
    learned = a.learned
    phases = ReshardRates(a.cost.rate, learned.reshard_phases) if learned else None
    return DrainAssumptions(
        cost=a.cost,
        source=a.source,
        recipients=recipients,
        balancer_enabled=a.balancer_enabled,
        window=a.window,
        chunk_caps=caps,
        # forceRedistribution (7.2+, at the cluster's FCV), as for the zones' reshard route
        reshard=(phases or ReshardRates(a.cost.rate)) if features >= (7, 2) else None,
        loads=loads,
    )
