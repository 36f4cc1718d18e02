"""`zonectl status`: zones, ranges, balancer, per-namespace compliance and distribution."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sys
from enum import StrEnum
from typing import Annotated

import typer

from zonectl.cli.boundary import guarded
from zonectl.cli.common import uri_option, warn
from zonectl.cli.fleet_options import FleetSpec, fleet_command
from zonectl.errors import ExitCode
from zonectl.mongo import connect
from zonectl.mongo.status import read_status
from zonectl.render.status import render_status_json
from zonectl.render.status_text import render_status_text
from zonectl.settings import Settings


class Format(StrEnum):
    text = "text"
    json = "json"


@guarded
@fleet_command(FleetSpec("status"))
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
) -> int:
    """Show where data sits and whether each namespace complies with its zones.

    Shards and their zones, each sharded namespace's ranges, balancing and
    compliance, the balancer, and any lease or unfinished apply.

    Compliance is zonectl's own count from one streaming pass over each
    namespace's chunks in config.chunks: chunks lying in a zone's range on
    a shard outside that zone, and chunks straddling a zone boundary. The
    server's balancerCollectionStatus is shown next to it where the server
    has it. Read-only: status never changes the cluster.

    Exit codes: 0 shown (compliant or not); 1 runtime error.

    Examples:

      zonectl status --uri sandbox:

      zonectl status --uri "$ZONECTL_URI" -n app.events --format json
    """
    settings = Settings.from_environ(os.environ)
    with connect(uri) as conn:
        report = read_status(
            conn,
            database=settings.database,
            now=dt.datetime.now(dt.UTC),
            namespaces=namespaces or None,
        )
    if namespaces:
        for note in report.notes:
            if note.split(":", 1)[0] in namespaces:
                warn(note)
    if fmt is Format.json:
        sys.stdout.write(render_status_json(report))
    else:
        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        width = shutil.get_terminal_size((100, 24)).columns
        sys.stdout.write(render_status_text(report, color=color, width=width))
    sys.stdout.flush()
    return int(ExitCode.OK)
