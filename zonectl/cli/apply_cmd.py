"""`zonectl apply`: parse the options, then run the plan behind the lease, the balancing
pause and the journal (zonectl.apply.run); the plan is re-read, or a saved one refused when
stale, by zonectl.session.apply."""

from __future__ import annotations

import datetime as dt
import os
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from zonectl.apply.disk_guard import refuse_full
from zonectl.apply.ports import Ports
from zonectl.apply.progress import ConsoleEvents
from zonectl.apply.run import ApplyOptions, ApplyResult, Prepared, run_apply
from zonectl.cli.apply_wiring import (
    echo_listeners,
    make_confirm,
    ops_done,
    parse_duration,
)
from zonectl.cli.common import load_desired, uri_option, uri_origin, warn
from zonectl.cli.connection import open_cluster
from zonectl.cli.error_boundary import guarded, stderr
from zonectl.cli.fleet.context import FleetSpec
from zonectl.cli.fleet.options import fleet_command
from zonectl.cli.metrics_out import MetricsRun, metrics_file_option
from zonectl.cli.migrate_failures import report_failures
from zonectl.cli.migrate_options import budget_option, check_parallel, parallel_option
from zonectl.cli.ns_option import namespace_option
from zonectl.environment import Settings
from zonectl.errors import ExitCode, UsageError, ZonectlError
from zonectl.plan.plan import Plan
from zonectl.plan.serialize import load_plan
from zonectl.render import render_text
from zonectl.render.summary import plural
from zonectl.session.apply import ApplyPreparer, dry_run_lines
from zonectl.session.namespaces import checked_namespaces
from zonectl.session.ports import build_ports


class Pause(StrEnum):
    collection = "collection"
    cluster = "cluster"


@guarded
@fleet_command(FleetSpec("apply", writes=True, files={"metrics_file": ".prom"}, format_param=None))
def command(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Policy files or directories (or use --plan).")
    ] = None,
    uri: Annotated[str | None, uri_option()] = None,
    plan_file: Annotated[
        Path | None,
        typer.Option(
            "--plan",
            metavar="FILE",
            help="Apply a plan saved by `zonectl plan --save-plan FILE`; refused if stale.",
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the commands that would be sent; change nothing."),
    ] = False,
    migrate: Annotated[
        bool,
        typer.Option("--migrate", help="Also split and move out-of-zone chunks now, while paused."),
    ] = False,
    pause: Annotated[
        Pause,
        typer.Option(
            help="Pause balancing per collection (noBalance) or stop the whole balancer "
            "around range changes; the prior state is always restored."
        ),
    ] = Pause.collection,
    wait_timeout: Annotated[
        str,
        typer.Option(
            help="How long to wait for in-flight migrations, or for a mongos that stopped "
            "answering, before giving up."
        ),
    ] = "60s",
    migrate_budget: Annotated[str | None, budget_option()] = None,
    parallel: Annotated[int | None, parallel_option()] = None,
    force_jumbo: Annotated[
        bool, typer.Option("--force-jumbo", help="Move chunks too big to migrate normally.")
    ] = False,
    namespaces: Annotated[
        list[str] | None,
        namespace_option(
            "Apply only these namespaces (repeatable).",
            scope="the policy names",
        ),
    ] = None,
    detach: Annotated[
        bool,
        typer.Option(
            "--detach",
            help="Start a resharding and leave it running on the server (status shows it; "
            "the next plan/apply waits for it).",
        ),
    ] = False,
    lease_ttl: Annotated[
        str, typer.Option(help="Lease lifetime; renewed while running, so a crash frees it.")
    ] = "5m",
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Print every command sent (redacted).")
    ] = False,
    metrics_file: Annotated[Path | None, metrics_file_option()] = None,
) -> int:
    """Bring the cluster to the policy: exactly the commands the plan lists.

    Takes a lease in zonectl's database (a concurrent run fails naming its
    holder), finishes an interrupted earlier run, re-reads the cluster, shows
    the plan and asks for confirmation. Range changes run with balancing of
    their collection paused (noBalance, or the whole balancer with --pause
    cluster) and are verified in config.tags; balancing is restored to what
    it was, also on errors and Ctrl-C. Every step is journaled so `zonectl
    recover` can clean up after a crash.

    Exit codes: 0 applied (or nothing to do); 1 runtime error, stale plan,
    lease held, or partial: --migrate moves of some namespaces failed (each
    named with the server's reason; the others' moves completed); 2 bad
    option (an unknown --namespace, checked before anything is sent); 3 invalid
    policy; 5 balancing could not be restored: run the
    printed command; 130 interrupted (balancing restored).

    Examples:

      zonectl apply policies/ --uri sandbox:

      zonectl plan policies/ --save-plan plan.json && zonectl apply --plan plan.json --yes

      zonectl apply policies/ --migrate --parallel 4 --budget 30m --yes

    A key change needs `reshard: true` in the policy when it is a resharding;
    it is watched from $currentOp, Ctrl-C aborts it (abortReshardCollection),
    --budget aborts it before its critical section when the server's estimate
    says it cannot end in time, --detach leaves it running.

    A shard the policy removes (`state: removed`) is drained last: without
    --migrate apply starts the drain, says what is left and what stops it,
    and returns; a later apply (cron) commits the removal once the balancer
    has emptied the shard. With --migrate zonectl moves its chunks itself
    (each to a shard of its zone) and removes it in the same run.

    With --metrics-file (not with --dry-run), the file gets the cluster's
    metrics after the run and this run's time, exit code and last success.
    """
    if not paths and plan_file is None:
        raise UsageError(
            "give policy PATHs, or --plan FILE saved by `zonectl plan --save-plan FILE`"
        )
    settings = Settings.from_environ(os.environ)
    with MetricsRun(None if dry_run else metrics_file, "apply", uri, settings) as run:
        options = ApplyOptions(
            pause=pause.value,
            wait_timeout_s=parse_duration(wait_timeout, "--wait-timeout") or 0.0,
            migrate_budget_s=parse_duration(migrate_budget, "--budget"),
            parallel=check_parallel(parallel),
            force_jumbo=force_jumbo,
            lease_ttl=dt.timedelta(seconds=parse_duration(lease_ttl, "--lease-ttl") or 300),
            detach=detach,
            migrate=migrate,
        )
        saved = _read_plan(plan_file) if plan_file else None
        # A saved plan is re-checked against the policy it came from (digest, managed namespaces).
        sources = paths or ([Path(s) for s in saved.sources] if saved else [])
        desired = load_desired(sources)
        with open_cluster(uri, uri_origin(uri), listeners=echo_listeners(verbose)) as conn:
            ports = build_ports(conn, settings.database)
            if namespaces:  # a typo is exit 2 before the lease is taken
                namespaces = checked_namespaces(conn, desired, namespaces, conn.local())
            prepare = _preparer(ApplyPreparer(conn, desired, saved, namespaces, migrate))
            if dry_run:
                return _dry_run(ports, options, prepare())
            events = ConsoleEvents(stderr, clock=conn.clock)
            result = run_apply(ports, options, prepare, make_confirm(yes, render_text), events)
            run.observe(conn, now=conn.local(), desired=desired)
        run.exit_code = _summary(result)
        return run.exit_code


def _read_plan(path: Path) -> Plan:
    try:
        return load_plan(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ZonectlError(f"cannot read plan {path}: {exc.strerror or exc}") from None
    except ZonectlError as exc:
        exc.message = f"{path}: {exc.message}"
        exc.hint = exc.hint or (
            "save a plan with `zonectl plan POLICY --save-plan FILE` (or --format json -o "
            "FILE); `plan -o` writes what --format names"
        )
        raise


def _preparer(preparer: ApplyPreparer) -> Callable[[], Prepared]:
    """The session's prepare, with the plan's warnings shown before its impacts are read."""

    def prepare() -> Prepared:
        draft = preparer.draft()
        for message in draft.warnings:
            warn(message)
        prepared = preparer.finish(draft)
        for message in prepared.plan.warnings[len(draft.plan.warnings) :]:
            warn(message)  # what the impact reads found (the disk guard's notices)
        return prepared

    return prepare


def _dry_run(ports: Ports, options: ApplyOptions, prepared: Prepared) -> int:
    refuse_full(prepared.plan, dry_run=True)  # no commands listed as if they would run
    commands = dry_run_lines(ports, options, prepared)
    for line in commands:
        sys.stdout.write(line + "\n")
    plan = prepared.plan
    stderr.print(
        f"dry run: {len(commands)} command(s) for plan {plan.plan_id}; nothing was sent",
        markup=False,
    )
    return int(ExitCode.OK)


def _summary(result: ApplyResult) -> int:
    for message in result.warnings:
        warn(message)
    if not result.apply_id:
        stderr.print("No changes: the cluster matches the policy.", markup=False)
        return int(ExitCode.OK)
    moved = sum(m.moved for m in result.migrations)
    skipped = sum(len(m.skipped) for m in result.migrations)
    left = sum(m.left for m in result.migrations)
    paused = sum(result.paused_s.values())
    line = f"zonectl: applied plan {result.plan_id} (apply {result.apply_id}): {ops_done(result)}"
    failed = sum(len(m.failed) for m in result.migrations)
    if result.migrations:
        line += f", {plural(moved, 'chunk')} moved, {skipped} skipped, {left} left"
        line += f", {failed} failed" if failed else ""
    line += result.resets.describe()  # "; 5 connection resets (3 found done, ...)"
    line += f"; balancing paused {paused:.1f}s in total and restored"
    stderr.print(line, markup=False)
    for m in result.migrations:
        for reason in m.skipped:
            warn(reason)
        for reason in m.failed:
            warn(f"move failed: {reason}")
        if m.left:
            warn(
                f"{m.ns}: {plural(m.left, 'out-of-zone chunk')} left to the balancer "
                "(the budget ran out, or no shard could take them); "
                "rerun apply --migrate to move them now"
            )
    return report_failures(result)
