"""`zonectl status`: zones, ranges, balancer, per-namespace compliance and distribution."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sys
from enum import StrEnum
from typing import Annotated

import typer

from zonectl.cli.boundary import guarded
from zonectl.cli.common import uri_option, warn
from zonectl.cli.forecast_wiring import (
    ForecastFlags,
    balancer_tz_option,
    copy_rate_option,
    parallel_forecast_option,
    parse_forecast_flags,
    read_forecast,
)
from zonectl.errors import ExitCode
from zonectl.forecast.report import Forecast
from zonectl.mongo import connect
from zonectl.mongo.connect import Connection
from zonectl.mongo.status import read_status
from zonectl.render.forecast import forecast_dict, render_forecast_text
from zonectl.render.status import StatusReport, status_document
from zonectl.render.status_text import render_status_text
from zonectl.settings import Settings


class Format(StrEnum):
    text = "text"
    json = "json"


@guarded
def command(
    uri: Annotated[str | None, uri_option()] = None,
    namespaces: Annotated[
        list[str] | None,
        typer.Option(
            "--namespace",
            "-n",
            help="Show only these namespaces (repeatable); shard chunk totals cover only them.",
        ),
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
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

    For namespaces not compliant, a forecast: the chunks and bytes still to
    move, each donor shard's backlog (for a firehose window: the hot shard's
    bytes that belong to cold) and when the balancer (inside its window, read
    in --balancer-tz) or `apply --migrate --parallel N` will have moved them,
    at the assumed --copy-rate.

    Exit codes: 0 shown (compliant or not); 1 runtime error.

    Examples:

      zonectl status --uri sandbox:

      zonectl status --uri "$ZONECTL_URI" -n app.events --format json
    """
    settings = Settings.from_environ(os.environ)
    flags = parse_forecast_flags(copy_rate, parallel, balancer_tz)
    with connect(uri) as conn:
        now = conn.wall()
        report = read_status(
            conn,
            database=settings.database,
            now=now,
            namespaces=namespaces or None,
        )
        forecast = _forecast(conn, report, flags, now)
    if namespaces:
        for note in report.notes:
            if note.split(":", 1)[0] in namespaces:
                warn(note)
    if fmt is Format.json:
        doc = status_document(report)
        doc["forecast"] = forecast_dict(forecast)
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        width = shutil.get_terminal_size((100, 24)).columns
        sys.stdout.write(render_status_text(report, color=color, width=width))
        if forecast.namespaces:
            sys.stdout.write("\n" + render_forecast_text(forecast))
    sys.stdout.flush()
    return int(ExitCode.OK)


def _forecast(
    conn: Connection, report: StatusReport, flags: ForecastFlags, now: dt.datetime
) -> Forecast:
    """The forecast for the namespaces not compliant, from what status read."""
    late = [c for c in report.collections if c.sharded and (c.outside_zone or c.straddling)]
    ranges = {c.namespace: [(r.min, r.max, r.zone) for r in c.ranges] for c in late}
    shard_zones = {s.id: frozenset(s.zones) for s in report.shards if not s.draining}
    no_balance = frozenset(c.namespace for c in late if c.balancing is False)
    return read_forecast(
        conn,
        ranges,
        shard_zones,
        flags,
        now=now,
        window=report.balancer.active_window,
        balancer_enabled=report.balancer.enabled,
        no_balance=no_balance,
    )
