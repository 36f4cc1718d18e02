"""`zonectl recover`: restore what an interrupted apply left (balancing paused by it, its
open journal) and release the lease; `--break-lease` frees a lease held by someone else."""

from __future__ import annotations

import os
from enum import StrEnum
from typing import Annotated

import typer

from zonectl.cli.common import uri_option, uri_origin
from zonectl.cli.connection import open_cluster
from zonectl.cli.error_boundary import guarded, stderr
from zonectl.cli.fleet.context import FleetSpec
from zonectl.cli.fleet.options import fleet_command
from zonectl.environment import Settings
from zonectl.errors import ExitCode
from zonectl.session.recover import recover


class ReshardAction(StrEnum):
    """--resharding: what to do about a reshardCollection an interrupted (or detached) apply
    left running on the server (zonectl.session.recover.RESHARD_ACTIONS)."""

    report = "report"
    wait = "wait"
    abort = "abort"


@guarded
@fleet_command(FleetSpec("recover", format_param=None))
def command(
    uri: Annotated[str | None, uri_option()] = None,
    break_lease: Annotated[
        bool,
        typer.Option(
            "--break-lease",
            help="Take the lease even if another run holds it. Check first that it is dead.",
        ),
    ] = False,
    resharding: Annotated[
        ReshardAction,
        typer.Option(
            "--resharding",
            help="A reshardCollection still running on the server: report it (default), "
            "wait for it to end, or abort it (abortReshardCollection, waited for).",
        ),
    ] = ReshardAction.report,
) -> int:
    """Finish an interrupted apply: restore balancing, close its journal, free the lease.

    A run killed with SIGKILL, or cut off from the cluster, may leave
    collections with noBalance set by zonectl, the balancer stopped by it,
    and the lease held. recover restores exactly the prior states its
    journal recorded (a balancer someone else stopped stays stopped) and
    releases the lease. The next `zonectl apply` does the same by itself
    before it re-plans. A moveCollection still running on the server (8.0)
    is reported, not stopped: it finishes by itself, and zonectl never
    starts a second one while it runs. A resharding still running is reported;
    `--resharding wait` waits for it, `--resharding abort` aborts it.

    Exit codes: 0 done (or nothing to do); 1 runtime error or lease held by a
    live run; 5 balancing could not be restored: run the printed command.
    """
    database = Settings.from_environ(os.environ).database
    with open_cluster(uri, uri_origin(uri)) as conn:
        found = recover(
            conn,
            database=database,
            break_lease=break_lease,
            resharding=resharding.value,
            tell=lambda line: stderr.print(line, markup=False),
        )
    for move in found.running:
        stderr.print(
            f"zonectl: a moveCollection of {move.namespace} to {move.to_shard} is still running "
            f"on the server (since {move.started}); it finishes by itself, and apply waits for "
            "it rather than starting another",
            markup=False,
        )
    for line in found.done:
        stderr.print(f"zonectl: recovered: {line}", markup=False)
    if not found.done:
        stderr.print("zonectl: nothing to recover", markup=False)
    stderr.print("zonectl: lease released", markup=False)
    return int(ExitCode.OK)
