"""`zonectl status`: zones, ranges, balancer, per-namespace compliance and distribution."""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from zonectl.cli.artifact import emit, out_option
from zonectl.cli.common import load_desired, uri_option, uri_origin, warn
from zonectl.cli.connection import open_cluster
from zonectl.cli.error_boundary import guarded
from zonectl.cli.fleet.context import FleetSpec
from zonectl.cli.fleet.options import fleet_command
from zonectl.cli.forecast_wiring import (
    balancer_tz_option,
    copy_rate_option,
    parallel_forecast_option,
    parse_forecast_flags,
    with_policy_timezone,
)
from zonectl.cli.metrics_out import MetricsRun, cluster_name, metrics_file_option, show_notices
from zonectl.cli.ns_option import chooser, namespace_option
from zonectl.environment import Settings
from zonectl.errors import ExitCode
from zonectl.model.desired import DesiredState
from zonectl.render.exposition import render_openmetrics
from zonectl.render.forecast import forecast_dict, render_forecast_text
from zonectl.render.html import render_status_html
from zonectl.render.json_indent import dumps_indented
from zonectl.render.metrics import make_families
from zonectl.render.status import status_document
from zonectl.render.status_text import render_status_text
from zonectl.session.forecast import ForecastFlags
from zonectl.session.status import (
    MetricsWanted,
    StatusRequest,
    read_status_view,
    with_policy,
)


class Format(StrEnum):
    text = "text"
    json = "json"
    openmetrics = "openmetrics"
    html = "html"


@guarded
@fleet_command(FleetSpec("status", files={"metrics_file": ".prom"}))
def command(
    policy: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Optional policy files or directories: with them status also shows each "
            "managed database's primary shard and its zones, where pinned unsharded "
            "collections live and which pattern each namespace came from, and the metrics "
            "count drift (pending plan ops) and each firehose window's next due time and "
            "pending rotation; without them those parts are absent.",
            show_default=False,
            metavar="POLICY",
        ),
    ] = None,
    uri: Annotated[str | None, uri_option()] = None,
    namespaces: Annotated[
        list[str] | None,
        namespace_option(
            "Show only these namespaces (repeatable); shard chunk totals cover only them.",
            scope="the cluster has sharded or given zone ranges",
        ),
    ] = None,
    fmt: Annotated[
        Format,
        typer.Option(
            "--format",
            "-f",
            help="Output format; openmetrics: the metrics for Prometheus (docs/metrics.md); "
            "html: one self-contained page picturing it (docs/status.md).",
        ),
    ] = Format.text,
    out: Annotated[Path | None, out_option()] = None,
    metrics_file: Annotated[Path | None, metrics_file_option()] = None,
    copy_rate: Annotated[str | None, copy_rate_option()] = None,
    parallel: Annotated[int | None, parallel_forecast_option()] = None,
    balancer_tz: Annotated[str | None, balancer_tz_option()] = None,
) -> int:
    """Show where data sits and whether each namespace complies with its zones.

    Shards and their zones, each sharded namespace's ranges, balancing and
    compliance, the balancer, and any lease or unfinished apply.

    Compliance is zonectl's own count from one streaming pass over each
    namespace's chunks in config.chunks: chunks lying in a zone's range on
    a shard outside that zone, and chunks straddling a zone boundary. The
    server's balancerCollectionStatus is shown next to it where the server
    has it. Read-only: status never changes the cluster.

    --format html prints one self-contained page (inline SVG, no script): per
    shard its data by zone, per collection its key space with zones, chunks
    by shard and out-of-zone marks, and the forecast as a burn-down.

    --format openmetrics prints the metrics for Prometheus (OpenMetrics text);
    --metrics-file writes them for node-exporter's textfile collector. Drift
    and window metrics need the POLICY argument. The `cluster` label is
    $ZONECTL_CLUSTER, else the URI's host list; the balancer window is read
    in the config server's zone: --balancer-tz, else $ZONECTL_CONFIG_TIMEZONE,
    else the policy's balancer.timezone, else UTC.

    For namespaces not compliant, a forecast: the chunks and bytes still to
    move, each donor shard's backlog (for a firehose window: the hot shard's
    bytes that belong to cold) and when the balancer (inside its window, read
    in --balancer-tz) or `apply --migrate --parallel N` will have moved them,
    at the assumed --copy-rate.

    Exit codes: 0 shown (compliant or not); 1 runtime error; 2 bad option (an
    unknown --namespace); 3 invalid policy.

    Examples:

      zonectl status --uri sandbox:

      zonectl status --uri "$ZONECTL_URI" -n app.events --format json

      zonectl status policies/ --uri "$ZONECTL_URI"

      zonectl status policies/ --format openmetrics

      zonectl status --format html -o status.html
    """
    settings = Settings.from_environ(os.environ)
    flags = parse_forecast_flags(copy_rate, parallel, balancer_tz)
    with MetricsRun(metrics_file, "status", uri, settings) as run:
        desired = load_desired(policy) if policy else None
        flags = with_policy_timezone(flags, desired, settings.config_timezone)
        if flags.tz_given:  # the metrics read the window in the same zone as the forecast
            settings = dataclasses.replace(settings, config_timezone=flags.tz_name)
        text = _status(uri, settings, desired, namespaces, fmt, flags, run, color=out is None)
        emit(text, out)
        run.exit_code = int(ExitCode.OK)
        return run.exit_code


def _status(
    uri: str | None,
    settings: Settings,
    desired: DesiredState | None,
    namespaces: list[str] | None,
    fmt: Format,
    flags: ForecastFlags,
    run: MetricsRun,
    *,
    color: bool,
) -> str:
    """The artifact --format names; `color` when stdout may take it."""
    with open_cluster(uri, uri_origin(uri)) as conn:
        metrics = None
        if fmt is Format.openmetrics or run.path is not None:
            metrics = MetricsWanted(settings, cluster_name(settings, conn.uri))
        request = StatusRequest(
            database=settings.database,
            flags=flags,
            desired=desired,
            choose=chooser(namespaces, with_policy=desired is not None),
            layout=fmt is Format.html,
            metrics=metrics,
        )
        view = read_status_view(conn, request)
        if view.metrics is not None:
            show_notices(view.metrics.notices)
            run.metrics = view.metrics.metrics
        if fmt is Format.openmetrics and run.metrics is not None:
            return render_openmetrics(make_families(run.metrics))
        if desired is not None:
            view = with_policy(conn, view, desired)
    report, forecast = view.report, view.forecast
    if view.namespaces:
        for note in report.notes:
            if note.split(":", 1)[0] in view.namespaces:
                warn(note)
    if fmt is Format.html:
        return render_status_html(report, forecast)
    if fmt is Format.json:
        doc = status_document(report)
        doc["forecast"] = forecast_dict(forecast)
        return dumps_indented(doc) + "\n"
    color = color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    width = shutil.get_terminal_size((100, 24)).columns
    text = render_status_text(report, color=color, width=width)
    if forecast.namespaces or forecast.collections:
        text += "\n" + render_forecast_text(forecast)
    return text
