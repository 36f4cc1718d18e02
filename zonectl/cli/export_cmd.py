"""`zonectl export`: the live zones, ranges and balancer settings as a policy YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from zonectl.cli.artifact import emit, out_option
from zonectl.cli.common import uri_option, uri_origin, warn
from zonectl.cli.connection import open_cluster
from zonectl.cli.error_boundary import guarded, stderr
from zonectl.cli.fleet.context import FleetSpec
from zonectl.cli.fleet.options import fleet_command
from zonectl.errors import ExitCode
from zonectl.session.export import export_policy


@guarded
@fleet_command(FleetSpec("export", format_param=None, artifact="yaml"))
def command(
    uri: Annotated[str | None, uri_option()] = None,
    namespaces: Annotated[
        list[str] | None,
        typer.Option(
            "--namespace",
            "-n",
            help="Export only these namespaces (repeatable; a pattern such as 'app.*' "
            "selects among the cluster's) and the zones their ranges use; no balancer section.",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        out_option(
            "Write the policy to FILE instead of stdout, atomically: a reader never sees "
            "half of it. In a fleet run FILE is a directory, one NAME.yaml per cluster."
        ),
    ] = None,
) -> int:
    """Write the live zones, ranges and balancer settings as a policy file.

    Covers shard zones, zone ranges, per-collection balancing and the balancer
    settings, so the first `zonectl plan` of the exported file is empty.

    Bounds are MongoDB Extended JSON exactly as config.tags stores them;
    comments mark what was found. Firehose windows cannot be recognised from
    the live ranges: they are exported as plain ranges, to be rewritten as a
    `firehose:` block by hand. Read-only.

    Exit codes: 0 written; 1 runtime error; 2 bad option (a --namespace the cluster
    does not have).

    Examples:

      zonectl export --uri sandbox: -o policies/cluster.yaml

      zonectl export --uri "$ZONECTL_URI" -n app.users > users.yaml
    """
    with open_cluster(uri, uri_origin(uri)) as conn:
        exported = export_policy(conn, namespaces)
    for notice in exported.notices:
        warn(notice.message, notice.details)
    emit(exported.text, out)
    if out is not None:
        stderr.print(f"policy written to {out}", markup=False)
    return int(ExitCode.OK)
