"""Metrics for Prometheus: the `--metrics-file` option, and the run that writes a cluster's
figures (read by zonectl/session/metrics.py: status, drift against a policy, windows,
zonectl's own records) atomically to a node-exporter textfile that also records the run."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer

from zonectl.cli.common import warn
from zonectl.cli.connection import Connection
from zonectl.cli.fleet.context import current_target
from zonectl.cli.metrics_file import write_run
from zonectl.environment import Settings
from zonectl.errors import ExitCode, ZonectlError
from zonectl.model.desired import DesiredState
from zonectl.render.metrics import (
    ClusterMetrics,
    cluster_label,
)
from zonectl.render.status import StatusReport
from zonectl.session.metrics import read_cluster_metrics
from zonectl.session.notice import Notice

METRICS_FILE_HELP = (
    "Also write Prometheus metrics to PATH in node-exporter's textfile format, atomically "
    "(a temporary file in the same directory, then renamed), with this run's time, exit "
    "code and last success. Name it *.prom in the collector's directory."
)


def metrics_file_option() -> Any:
    """For `Annotated[Path | None, metrics_file_option()] = None`."""
    return typer.Option("--metrics-file", help=METRICS_FILE_HELP, metavar="PATH")


def show_notices(notices: Sequence[Notice]) -> None:
    for notice in notices:
        warn(notice.message, notice.details)


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
        self.cluster = cluster_name(settings, uri or settings.uri or "")
        # The instant the cluster's figures are read at (rotate --at: the policy's instant)
        self.now = dt.datetime.now(dt.UTC)
        # When the run ran, for its time and last success: this host's clock (or a served
        # sandbox's own timeline, `Connection.local`), never --at, so a rotate --at a future
        # instant does not silence the "not succeeding" alert until then.
        self.ran = self.now
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
        self.now, self.ran = now, conn.local()
        try:
            found = read_cluster_metrics(
                conn,
                settings=self.settings,
                now=now,
                cluster=cluster_name(self.settings, conn.uri),
                desired=desired,
                report=report,
                namespaces=namespaces,
            )
            show_notices(found.notices)
            self.metrics = replace(found.metrics, read_at=self.ran)
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
        base = self.metrics or ClusterMetrics(cluster=self.cluster, now=self.now, read=False)
        write_run(self.path, self.command, code, ran=self.ran, base=base)


def cluster_name(settings: Settings, uri: str) -> str:
    """The `cluster` label: the inventory name in a fleet run, else $ZONECTL_CLUSTER, else
    the URI's host list (never its credentials)."""
    target = current_target()
    if target is not None:
        return target.cluster.name
    return settings.cluster or cluster_label(uri)
