"""`zonectl doctor`: a read-only preflight of a cluster and this user, one line per check;
with --probe, a scratch round trip in zonectl's own database."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from zonectl.cli.apply_wiring import parse_duration
from zonectl.cli.artifact import emit, out_option
from zonectl.cli.common import load_desired, uri_option, uri_origin
from zonectl.cli.error_boundary import guarded
from zonectl.cli.fleet.context import FleetSpec
from zonectl.cli.fleet.options import fleet_command
from zonectl.environment import Settings
from zonectl.errors import ExitCode, UsageError


class Format(StrEnum):
    text = "text"
    json = "json"


@guarded
@fleet_command(FleetSpec("doctor"))
def command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Policy files or directories: also check that their shards, namespaces "
            "and shard keys exist as they say.",
            show_default=False,
        ),
    ] = None,
    uri: Annotated[str | None, uri_option()] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
    out: Annotated[Path | None, out_option()] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Warnings fail too (exit 1), not only failures.")
    ] = False,
    probe: Annotated[
        bool,
        typer.Option(
            "--probe",
            help="Also run a round trip that CHANGES the cluster briefly: a scratch sharded "
            "collection in zonectl's database and a scratch zone on one shard, a range "
            "added, checked and removed, balancing paused and restored, the error codes "
            "zonectl relies on provoked; everything is removed after success, failure or "
            "Ctrl-C. Refused while a lease is held or the balancer stays in a round.",
        ),
    ] = False,
    teach_rate: Annotated[
        bool,
        typer.Option(
            "--teach-rate",
            help="With --probe: also write 64 MiB of scratch chunks of different sizes "
            "and migrate them between two shards, so config.changelog has migrations to "
            "learn the cluster's speed from (plan and status assume it until then). "
            "The scratch collection is dropped afterwards.",
        ),
    ] = False,
    wait_timeout: Annotated[
        str,
        typer.Option(help="How long --probe waits for a balancer round to end before refusing."),
    ] = "30s",
) -> int:
    """Check that this cluster and this user can run zonectl safely.

    Read-only (without --probe): the target is a mongos; its version and
    feature compatibility version, and what zonectl will use on it; this
    user's privileges against what plan, apply, rotate, status, export and
    recover send (from connectionStatus with showPrivileges), naming each
    missing action and resource; the clock skew between this host and the
    cluster; the balancer's state, window and round; migrations in flight;
    draining shards; jumbo chunks; a held lease or an unfinished apply.
    Given policies, also that each shard and namespace they name exists and
    each shard key is the live one.

    Exit codes: 0 every check ok (warnings allowed unless --strict);
    1 a check failed, or the cluster is unreachable, not a mongos, or
    refuses the login; 3 invalid policy; 130 interrupted (--probe cleans up
    first).

    Examples:

      zonectl doctor --uri sandbox:

      zonectl doctor policies/ --uri "$ZONECTL_URI" --strict --format json

      zonectl doctor --uri "$ZONECTL_URI" --probe

      zonectl doctor --uri "$ZONECTL_URI" --probe --teach-rate
    """
    from zonectl.cli.connection import open_cluster
    from zonectl.doctor.checks import exit_status
    from zonectl.doctor.render import render_json, render_text
    from zonectl.session.doctor import DoctorRequest, run_doctor

    settings = Settings.from_environ(os.environ)
    round_wait_s = parse_duration(wait_timeout, "--wait-timeout") or 0.0
    if teach_rate and not probe:
        raise UsageError("--teach-rate needs --probe: it migrates the probe's scratch chunks")
    desired = load_desired(paths) if paths else None  # bad input before anything is sent
    request = DoctorRequest(settings.database, desired, probe, round_wait_s, teach_rate)
    with open_cluster(uri, uri_origin(uri)) as conn:
        found = run_doctor(conn, request)
    facts, checks = found.facts, found.checks
    passed = exit_status(checks, strict=strict)
    if fmt is Format.json:
        emit(render_json(checks, uri=facts.uri, passed=passed, probe=probe), out)
    else:
        emit(render_text(checks, f"zonectl doctor: {facts.uri}"), out)
    return int(ExitCode.OK if passed else ExitCode.FAILURE)
