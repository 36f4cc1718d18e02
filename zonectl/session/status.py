"""`zonectl status` on an open connection: the namespaces `-n` selects, the report, the
forecast for the namespaces not compliant, the metrics when asked for, and with a policy its
managed databases, pins, pattern origins and moveCollection ops. Prints nothing."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Collection
from dataclasses import dataclass

from zonectl.environment import Settings
from zonectl.forecast.collection_moves import moves_of, with_collection_moves
from zonectl.forecast.report import Forecast
from zonectl.model.desired import DesiredState
from zonectl.mongo.chunk_sizes import ChunkSizes
from zonectl.mongo.connect import Connection
from zonectl.mongo.namespaces_read import read_namespaces
from zonectl.mongo.status import read_status
from zonectl.mongo.unsharded_read import read_move_impacts
from zonectl.plan.settings_view import setting_lines
from zonectl.render.status import DatabaseStatus, StatusReport
from zonectl.session.forecast import ForecastFlags, read_forecast, with_drains
from zonectl.session.metrics import MetricsRead, read_cluster_metrics
from zonectl.session.policy_plan import read_policy_plan
from zonectl.session.status_report import status_report, with_etas

Lookup = Callable[[Collection[str]], Collection[str]]  # databases -> the cluster's namespaces
# (scope, lookup) -> the namespaces `--namespace` selects; UsageError naming an unknown one.
NamespaceChooser = Callable[[Collection[str], Lookup], list[str]]


@dataclass(frozen=True)
class MetricsWanted:
    """Read the metrics too, labelled `cluster`."""

    settings: Settings
    cluster: str


@dataclass(frozen=True)
class StatusRequest:
    database: str  # zonectl's own (lease, journals)
    flags: ForecastFlags  # the forecast's (--copy-rate, --parallel, --balancer-tz)
    desired: DesiredState | None = None
    choose: NamespaceChooser | None = None  # --namespace was given
    layout: bool = False  # keep where each chunk sits (the html pictures)
    metrics: MetricsWanted | None = None


@dataclass(frozen=True)
class StatusView:
    now: dt.datetime  # the cluster's: a sandbox's (virtual) clock
    namespaces: list[str] | None  # what --namespace selected
    report: StatusReport
    forecast: Forecast
    metrics: MetricsRead | None = None


def read_status_view(conn: Connection, request: StatusRequest) -> StatusView:
    """The report, its forecast and (when asked) the metrics, at the cluster's now."""
    now = conn.wall()
    selected = _select(conn, request) if request.choose is not None else None
    read = read_status(
        conn,
        database=request.database,
        now=now,
        namespaces=selected or None,
        layout=request.layout,
    )
    report = status_report(read, now, request.flags.tz)
    sizes = ChunkSizes(conn)
    forecast = _forecast(sizes, report, request.flags, now)
    if report.drains:  # each drain's time by each route; the balancer's is status's ETA
        drains = [d.drain for d in report.drains]
        forecast = with_drains(forecast, drains, read.state, sizes)
        report = dataclasses.replace(report, drains=with_etas(report.drains, forecast))
    metrics: MetricsRead | None = None
    if request.metrics is not None:
        wanted = request.metrics
        found = read_cluster_metrics(
            conn,
            settings=wanted.settings,
            now=now,
            cluster=wanted.cluster,
            desired=request.desired,
            report=report,
        )
        with_forecast = dataclasses.replace(found.metrics, forecast=_compliance_instants(forecast))
        metrics = MetricsRead(with_forecast, found.notices)
    return StatusView(now, selected, report, forecast, metrics)


def _select(conn: Connection, request: StatusRequest) -> list[str]:
    """A typo is exit 2, not an empty report that "complies"."""
    assert request.choose is not None
    desired = request.desired
    scope = {*read_namespaces(conn), *(desired.collections if desired else ())}
    return request.choose(scope, lambda dbs: read_namespaces(conn, dbs))


def with_policy(conn: Connection, view: StatusView, desired: DesiredState) -> StatusView:
    """Managed databases with their primary, the plan's notes on pins and patterns, and
    the moveCollection ops the plan would run counted in the forecast, as plan counts them."""
    policy = read_policy_plan(conn, desired, conn.local())
    plan, resolved = policy.plan, policy.resolved
    actual = resolved.actual
    zones = {s.id: s.zones for s in actual.shards}
    names = sorted({ns.split(".", 1)[0] for ns in resolved.desired.collections})
    databases = tuple(
        DatabaseStatus(db, actual.databases[db], tuple(zones.get(actual.databases[db], ())))
        for db in names
        if db in actual.databases
    )
    origins = [f"{ns}: from pattern {p!r}" for ns, p in sorted(resolved.origins.items())]
    placed = dataclasses.replace(
        view.report,
        databases=databases,
        placements=(*plan.notes, *origins),
        settings=setting_lines(actual, resolved.desired),
    )
    moves = moves_of(plan.with_impacts(read_move_impacts(conn, plan)))
    return dataclasses.replace(
        view, report=placed, forecast=with_collection_moves(view.forecast, moves)
    )


def _forecast(
    sizes: ChunkSizes, report: StatusReport, flags: ForecastFlags, now: dt.datetime
) -> Forecast:
    """The forecast for the namespaces not compliant, from what status read."""
    late = [c for c in report.collections if c.sharded and (c.outside_zone or c.straddling)]
    ranges = {c.namespace: [(r.min, r.max, r.zone) for r in c.ranges] for c in late}
    shard_zones = {s.id: frozenset(s.zones) for s in report.shards if not s.draining}
    no_balance = frozenset(c.namespace for c in late if c.balancing is False)
    defragmenting = frozenset(
        c.namespace
        for c in late
        if (c.server or {}).get("firstComplianceViolation") == "defragmentingChunks"
    )
    return read_forecast(
        sizes,
        ranges,
        shard_zones,
        flags,
        now=now,
        window=report.balancer.active_window,
        day_windows=report.balancer.day_windows,
        balancer_enabled=report.balancer.enabled,
        shards=[s.id for s in report.shards],
        no_balance=no_balance,
        defragmenting=defragmenting,
    )


def _compliance_instants(forecast: Forecast) -> dict[str, dt.datetime]:
    """Namespace -> when the balancer, left alone, is forecast to have moved what is out of
    zone (the metric alerting watches); absent where it never will (off, noBalance)."""
    return {
        ns.ns: forecast.now + dt.timedelta(seconds=ns.balancer_s)
        for ns in forecast.namespaces
        if ns.balancer_s is not None
    }
