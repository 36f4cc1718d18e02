"""Metrics for Prometheus: gather a cluster's figures (status, drift against a policy,
windows, zonectl's own records) and write them to stdout or, for `--metrics-file`,
atomically to a node-exporter textfile that also records the run that wrote it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer

from zonectl.atomic import write_atomically
from zonectl.cli.common import warn
from zonectl.cli.fleet.context import current_target
from zonectl.cli.forecast_wiring import policy_timezone
from zonectl.cli.policy_plan import read_policy_plan
from zonectl.errors import ExitCode, PlanError, UsageError, ZonectlError
from zonectl.model.desired import DesiredState
from zonectl.mongo import Connection
from zonectl.mongo.metrics_read import read_last_rotations, read_migrations_in_flight
from zonectl.mongo.status import read_status
from zonectl.plan.restrict import is_window_op, window_namespaces
from zonectl.plan.settings_view import setting_lines
from zonectl.render.exposition import find_sample, render_textfile
from zonectl.render.metrics import (
    ClusterMetrics,
    RunMetrics,
    WindowMetrics,
    cluster_label,
    in_active_window,
    make_families,
)
from zonectl.render.status import StatusReport
from zonectl.settings import Settings
from zonectl.time_zones import load_time_zone

METRICS_FILE_HELP = (
    "Also write Prometheus metrics to PATH in node-exporter's textfile format, atomically "
    "(a temporary file in the same directory, then renamed), with this run's time, exit "
    "code and last success. Name it *.prom in the collector's directory."
)


def metrics_file_option() -> Any:
    """For `Annotated[Path | None, metrics_file_option()] = None`."""
    return typer.Option("--metrics-file", help=METRICS_FILE_HELP, metavar="PATH")


def read_cluster_metrics(
    conn: Connection,
    *,
    settings: Settings,
    now: dt.datetime,
    desired: DesiredState | None = None,
    report: StatusReport | None = None,
    namespaces: Sequence[str] | None = None,
) -> ClusterMetrics:
    """Everything but the run: the status report (read unless given; of `namespaces` only
    when given), migrations in flight, and with a policy its drift, its windows and when
    each last moved."""
    if report is None:
        report = read_status(conn, database=settings.database, now=now, namespaces=namespaces)
    metrics = ClusterMetrics(
        cluster=_cluster_name(settings, conn.uri),
        now=now,
        report=report,
        balancer_in_window=in_active_window(
            report.balancer.active_window,
            now.astimezone(_config_zone(settings, desired)),
            report.balancer.day_windows,
        ),
        migrations=read_migrations_in_flight(conn),
        lease_acquired=report.lease.acquired if report.lease else None,
    )
    if desired is None:
        return metrics
    return _with_policy(conn, metrics, settings, desired, now)


def _config_zone(settings: Settings, desired: DesiredState | None) -> dt.tzinfo:
    """$ZONECTL_CONFIG_TIMEZONE (or --balancer-tz, which status puts there), else the
    policy's `balancer.timezone`, else UTC: the order the forecast uses too."""
    name = settings.config_timezone or policy_timezone(desired) or "UTC"
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
) -> ClusterMetrics:
    # The plan `zonectl plan` would make: patterns expanded, so drift and windows cover
    # the namespaces they match too.
    try:
        policy = read_policy_plan(conn, desired, now)
    except PlanError as exc:
        warn(
            f"metrics: the policy cannot be planned, so no drift figures: {exc.message}",
            exc.details,
        )
        return replace(metrics, plan_error=True)
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
    last = read_last_rotations(conn, settings.database, names)
    if last is None:
        warn(f"metrics: not allowed to read {settings.database}.audit: no last rotation times")
        last = {}
    from zonectl.windows import next_tick

    windows = []
    for ns in names:
        fh = desired.collections[ns].firehose
        assert fh is not None
        windows.append(WindowMetrics(ns, next_tick(fh, now), pending.get(ns, 0), last.get(ns)))
    lines = setting_lines(actual, desired)
    return replace(metrics, drift=drift, plan_error=False, windows=tuple(windows), settings=lines)


def named_namespaces(desired: DesiredState) -> list[str]:
    """The namespaces a policy names exactly (not its glob patterns): what a frequent
    rotate's metrics scan, so a cron run does not read every chunk of the cluster."""
    return sorted(ns for ns in desired.collections if not any(c in ns for c in "*?["))


class MetricsRun:
    """`--metrics-file` for one run: the command calls `observe` while connected; on the
    way out (success or failure) the file is written with the run's exit code. The last
    success time lives in the file itself, carried over from the previous file when this
    run fails, so a rotate with nothing due still writes nothing to the cluster."""

    def __init__(
        self, path: Path | None, command: str, uri: str | None, settings: Settings
    ) -> None:
        self.path, self.command, self.settings = path, command, settings
        self.cluster = _cluster_name(settings, uri or settings.uri or "")
        self.now = dt.datetime.now(dt.UTC)
        self.metrics: ClusterMetrics | None = None
        self.exit_code = 0  # what the command returns, when it returns rather than raises

    def observe(
        self,
        conn: Connection,
        *,
        now: dt.datetime,
        desired: DesiredState | None = None,
        report: StatusReport | None = None,
        namespaces: Sequence[str] | None = None,
    ) -> None:
        if self.path is None:
            return
        self.now = now
        try:
            self.metrics = read_cluster_metrics(
                conn,
                settings=self.settings,
                now=now,
                desired=desired,
                report=report,
                namespaces=namespaces,
            )
        except ZonectlError as exc:  # the run itself went well: keep its exit code
            warn(f"metrics: could not read the cluster's figures: {exc.message}")

    def __enter__(self) -> MetricsRun:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any
    ) -> None:
        if self.path is None:
            return
        if exc is None:
            code = self.exit_code
        elif isinstance(exc, ZonectlError):
            code = int(exc.exit_code)
        elif isinstance(exc, KeyboardInterrupt):
            code = int(ExitCode.INTERRUPTED)
        else:
            code = int(ExitCode.FAILURE)
        self.finish(code)

    def finish(self, code: int) -> None:
        """Write the file; a run that failed keeps the previous file's last success."""
        assert self.path is not None
        last: dt.datetime | None = self.now if code == 0 else self._previous_success()
        base = self.metrics or ClusterMetrics(cluster=self.cluster, now=self.now)
        run = RunMetrics(self.command, self.now, code, last)
        text = render_textfile(make_families(replace(base, run=run)))
        try:
            write_atomically(self.path, text)
        except OSError as exc:
            warn(f"metrics file {self.path} not written: {exc.strerror or exc}")

    def _previous_success(self) -> dt.datetime | None:
        try:
            text = self.path.read_text(encoding="utf-8") if self.path else ""
        except OSError:
            return None
        labels = {"cluster": self.cluster, "command": self.command}
        value = find_sample(text, "zonectl_run_last_success_timestamp_seconds", labels)
        return dt.datetime.fromtimestamp(value, dt.UTC) if value is not None else None


def _cluster_name(settings: Settings, uri: str) -> str:
    """The `cluster` label: the inventory name in a fleet run, else $ZONECTL_CLUSTER, else
    the URI's host list (never its credentials)."""
    target = current_target()
    if target is not None:
        return target.cluster.name
    return settings.cluster or cluster_label(uri)
