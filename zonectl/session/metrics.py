"""A cluster's figures for Prometheus (zonectl.render.metrics): the status report, migrations
in flight, and with a policy its drift, its windows and when each last moved. Writing them
(stdout, `--metrics-file`) is the command's; the warnings come back as `Notice`s."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace

from zonectl.environment import Settings
from zonectl.errors import PlanError, UsageError
from zonectl.model.desired import DesiredState
from zonectl.mongo.connect import Connection
from zonectl.mongo.metrics_read import read_last_rotations, read_migrations_in_flight
from zonectl.plan.restrict import is_window_op, window_namespaces
from zonectl.plan.settings_view import setting_lines
from zonectl.render.metrics import ClusterMetrics, WindowMetrics, in_active_window
from zonectl.render.status import StatusReport
from zonectl.session.notice import Notice
from zonectl.session.policy_plan import read_policy_plan
from zonectl.session.status_report import read_status_report
from zonectl.time_zones import load_time_zone


@dataclass(frozen=True)
class MetricsRead:
    metrics: ClusterMetrics
    notices: tuple[Notice, ...] = ()


def read_cluster_metrics(
    conn: Connection,
    *,
    settings: Settings,
    now: dt.datetime,
    cluster: str,
    desired: DesiredState | None = None,
    report: StatusReport | None = None,
    namespaces: Sequence[str] | None = None,
) -> MetricsRead:
    """Everything but the run, labelled `cluster`: the status report (read unless given;
    of `namespaces` only when given), migrations in flight, and with a policy its drift,
    its windows and when each last moved."""
    zone = _config_zone(settings, desired)
    if report is None:
        report = read_status_report(
            conn,
            database=settings.database,
            now=now,
            namespaces=namespaces,
            config_tz=zone,
            desired=desired,
        )
    metrics = ClusterMetrics(
        cluster=cluster,
        now=now,
        report=report,
        balancer_in_window=in_active_window(
            report.balancer.active_window,
            now.astimezone(zone),
            report.balancer.day_windows,
        ),
        migrations=read_migrations_in_flight(conn),
        lease_acquired=report.lease.acquired if report.lease else None,
    )
    if desired is None:
        return MetricsRead(metrics)
    return _with_policy(conn, metrics, settings, desired, now)


def _config_zone(settings: Settings, desired: DesiredState | None) -> dt.tzinfo:
    """$ZONECTL_CONFIG_TIMEZONE (or --balancer-tz, which status puts there), else the
    policy's `balancer.timezone`, else UTC: the order the forecast uses too."""
    policy_zone = desired.balancer.timezone if desired and desired.balancer else None
    name = settings.config_timezone or policy_zone or "UTC"
    try:
        return load_time_zone(name)
    except ValueError:
        raise UsageError(
            f"ZONECTL_CONFIG_TIMEZONE: unknown time zone {name!r}; "
            "give an IANA name such as Europe/Berlin (the balancer window is in the config "
            "server's local time)"
        ) from None


def _with_policy(
    conn: Connection,
    metrics: ClusterMetrics,
    settings: Settings,
    desired: DesiredState,
    now: dt.datetime,
) -> MetricsRead:
    # The plan `zonectl plan` would make: patterns expanded, so drift and windows cover
    # the namespaces they match too (read_policy_plan, the one way plan and apply do).
    try:
        policy = read_policy_plan(conn, desired, now)
    except PlanError as exc:
        message = f"metrics: the policy cannot be planned, so no drift figures: {exc.message}"
        return MetricsRead(replace(metrics, plan_error=True), (Notice(message, exc.details),))
    plan, actual, desired = policy.plan, policy.resolved.actual, policy.resolved.desired
    drift: dict[str | None, int] = {None: 0}
    drift.update({ns: 0 for ns in actual.collections if ns in desired.collections})
    pending: dict[str, int] = {}
    for op in plan.ops:
        ns = op.namespace
        drift[ns] = drift.get(ns, 0) + 1
        if ns is not None and is_window_op(op, desired):
            pending[ns] = pending.get(ns, 0) + 1
    names = window_namespaces(desired)
    notices: list[Notice] = []
    last = read_last_rotations(conn, settings.database, names)
    if last is None:
        notices.append(
            Notice(
                f"metrics: not allowed to read {settings.database}.audit: no last rotation times"
            )
        )
        last = {}
    from zonectl.firehose import next_tick

    windows = []
    for ns in names:
        fh = desired.collections[ns].firehose
        assert fh is not None
        windows.append(WindowMetrics(ns, next_tick(fh, now), pending.get(ns, 0), last.get(ns)))
    lines = setting_lines(actual, desired)
    found = replace(metrics, drift=drift, plan_error=False, windows=tuple(windows), settings=lines)
    return MetricsRead(found, tuple(notices))
