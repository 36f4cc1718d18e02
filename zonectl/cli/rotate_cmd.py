"""`zonectl rotate`: move every firehose window to its boundary at an instant, through
apply's lease, per-collection pause and journal; quiet and write-free when nothing is due."""

from __future__ import annotations

import datetime as dt
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from zonectl.apply.progress import ConsoleEvents
from zonectl.apply.run import (
    ApplyOptions,
    ApplyResult,
    Prepared,
    Preview,
    preview_migration,
    run_apply,
)
from zonectl.cli.apply_wiring import build_ports, echo_listeners, parse_duration
from zonectl.cli.boundary import guarded, stderr
from zonectl.cli.common import load_desired, parse_at, uri_option, warn
from zonectl.cli.migrate_options import budget_option, check_parallel, parallel_option
from zonectl.errors import ExitCode, InvalidPolicyError, PlanError, ZonectlError
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState, Firehose
from zonectl.mongo import Connection, connect, read_cluster_state, read_impacts
from zonectl.mongo.key_sample import read_top_key_value
from zonectl.plan.planner import make_plan
from zonectl.plan.restrict import (
    WindowPlan,
    drift_ops,
    key_type_problem,
    make_window_plan,
    window_namespaces,
    window_problems,
)
from zonectl.render import render_text
from zonectl.settings import Settings


@guarded
def command(
    paths: Annotated[list[Path], typer.Argument(help="Policy files or directories.")],
    uri: Annotated[str | None, uri_option()] = None,
    at: Annotated[
        str | None,
        typer.Option(help="Rotate as if it were this instant (ISO 8601 with offset)."),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    migrate: Annotated[
        bool,
        typer.Option("--migrate", help="Also move chunks that left the hot window now."),
    ] = False,
    migrate_budget: Annotated[str | None, budget_option()] = None,
    parallel: Annotated[int | None, parallel_option()] = None,
    wait_timeout: Annotated[
        str, typer.Option(help="How long to wait for in-flight migrations before giving up.")
    ] = "60s",
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Print every command sent (redacted).")
    ] = False,
) -> int:
    """Move each firehose window to its boundary now (or at --at); nothing else.

    Plans only the hot/cold ranges of firehose collections and applies them
    with apply's safeguards: the lease, balancing of the collection paused
    only while its old ranges are removed and the new ones added, verified
    in config.tags, then restored. Other drift is reported on stderr and
    left for `zonectl apply`. Safe to run every few minutes: when no window
    is due it prints nothing and sends no write. A missed run catches up.

    Exit codes: 0 rotated or nothing due; 1 runtime error (including a
    window that cannot be placed on this cluster); 2 bad option; 3 invalid
    policy; 5 balancing could not be restored: run the printed command.

    Examples:

      zonectl rotate policies/ --uri sandbox:

      zonectl rotate policies/ --yes          # from cron, ZONECTL_URI set

      zonectl rotate policies/ --at 2026-03-02T00:05:00Z --migrate --yes
    """
    instant = parse_at(at, dt.datetime.now(dt.UTC))
    desired = load_desired(paths)
    names = window_namespaces(desired)
    if not names:
        warn("the policy has no firehose windows: nothing to rotate")
        return int(ExitCode.OK)
    boundaries, next_tick = _boundaries(desired, names, instant)
    options = ApplyOptions(
        wait_timeout_s=parse_duration(wait_timeout, "--wait-timeout") or 0.0,
        migrate_budget_s=parse_duration(migrate_budget, "--budget"),
        parallel=check_parallel(parallel),
        operation="rotate",
    )
    database = Settings.from_environ(os.environ).database
    with connect(uri, listeners=echo_listeners(verbose)) as conn:
        ports = build_ports(conn, database)

        def plan_now() -> tuple[WindowPlan, ClusterState]:
            actual = read_cluster_state(conn, desired.collections)
            window = make_window_plan(
                desired, actual, boundaries=boundaries, at=instant, valid_until=next_tick
            )
            problems = window_problems(window, actual)
            if problems:
                raise PlanError(_listing("cannot rotate", problems))
            return window, actual

        first = _preflight(conn, desired, names, boundaries, instant)
        window, _ = plan_now()
        eager = [ns for ns in names if migrate and ns in first.collections]
        previews = [preview_migration(ports, ns, False) for ns in eager]
        due = bool(window.plan.ops) or any(p.splits or p.moves.violating for p in previews)
        if not due and not ports.journal.find_open():
            if sys.stderr.isatty():
                stderr.print(f"zonectl: nothing due at {instant:%Y-%m-%dT%H:%M:%SZ}", markup=False)
            return int(ExitCode.OK)  # nothing sent: not even the lease
        if due and not yes and not sys.stdin.isatty():
            raise ZonectlError(
                "refusing to rotate without confirmation: stdin is not a terminal",
                hint="review with `zonectl plan`, then rerun with --yes (as cron does)",
            )
        ran: list[WindowPlan] = []

        def prepare() -> Prepared:
            current, actual = plan_now()  # re-read under the lease: another run may have rotated
            ran.append(current)
            impacts = read_impacts(conn, actual, current.plan)
            return Prepared(current.plan.with_impacts(impacts), tuple(eager))

        events = ConsoleEvents(stderr, quiet=not sys.stderr.isatty(), clock=conn.clock)
        result = run_apply(ports, options, prepare, _confirm(yes), events)
    return _report(result, ran[-1] if ran else window)


def _boundaries(
    desired: DesiredState, names: Sequence[str], instant: dt.datetime
) -> tuple[dict[str, Any], dt.datetime | None]:
    """Each window's boundary value at `instant` and the earliest next tick. A schedule
    that never fires or an unknown zone is an invalid policy (exit 3), found here even
    when the policy loader let it through, before any connection is made."""
    from zonectl.windows import boundary_value, next_tick, validate_schedule

    problems: list[str] = []
    for ns in names:
        fh = _firehose(desired, ns)
        problem = validate_schedule(fh.schedule, fh.timezone)
        if problem is None and fh.keep < 1:
            problem = f"keep must be at least 1, not {fh.keep}"
        if problem is not None:
            where = fh.position or desired.collections[ns].position
            problems.append(f"{where or (desired.sources or ('policy',))[0]}: {ns}: {problem}")
    if problems:
        raise InvalidPolicyError(_listing("invalid firehose window", problems))
    values = {ns: boundary_value(_firehose(desired, ns), instant) for ns in names}
    ticks = [next_tick(_firehose(desired, ns), instant) for ns in names]
    return values, min(ticks)


def _firehose(desired: DesiredState, ns: str) -> Firehose:
    fh = desired.collections[ns].firehose
    assert fh is not None
    return fh


def _preflight(
    conn: Connection,
    desired: DesiredState,
    names: Sequence[str],
    boundaries: dict[str, Any],
    instant: dt.datetime,
) -> ClusterState:
    """Read-only checks before anything is sent: each window's key type against a live
    chunk bound, and the drift outside windows (reported, never touched)."""
    actual = read_cluster_state(conn, desired.collections)
    problems = []
    for ns in names:
        fh = _firehose(desired, ns)
        live = actual.collections.get(ns)
        if live is None or next(iter(live.key), None) != fh.field:
            continue  # unsharded, or a key the planner reports with its position
        problem = key_type_problem(ns, fh, read_top_key_value(conn, actual, ns, fh.field))
        if problem is not None:
            where = fh.position or desired.collections[ns].position
            problems.append(f"{where}: {problem}" if where else problem)
    if problems:
        raise PlanError(_listing("cannot rotate", problems))
    try:
        full = make_plan(desired, actual, boundaries=boundaries, at=instant)
    except PlanError as exc:
        warn(f"outside firehose windows the policy cannot be planned: {exc.message}")
        return actual
    drift = drift_ops(full, desired)
    if drift:
        warn(
            f"{len(drift)} change(s) outside firehose windows are left for `zonectl apply`:\n"
            + "\n".join(f"  ~ {op.describe()}" for op in drift)
        )
    return actual


def _confirm(yes: bool) -> Callable[[Prepared, Sequence[Preview]], bool]:
    def confirm(prepared: Prepared, previews: Sequence[Preview]) -> bool:
        if yes:
            return True
        stderr.print(render_text(prepared.plan), markup=False, end="")
        if not sys.stdin.isatty():
            raise ZonectlError("refusing to rotate without confirmation: stdin is not a terminal")
        return bool(typer.confirm("Rotate these windows?", default=False, err=True))

    return confirm


def _report(result: ApplyResult, window: WindowPlan) -> int:
    """stdout: what moved, per namespace; stderr: the one-line summary."""
    for message in result.warnings:
        warn(message)
    if not result.apply_id:
        return int(ExitCode.OK)
    lines = []
    for move in window.moves:
        lines.append(move.describe())
        lines.extend(f"  {op.describe()}" for op in move.ops)
        held = result.range_s.get(move.ns)
        if held is not None:
            lines.append(f"  ranges swapped in {held * 1000:.0f} ms with balancing paused")
    for m in result.migrations:
        if m.moved or m.left or m.splits or m.failed:
            failed = f", {len(m.failed)} failed" if m.failed else ""
            lines.append(
                f"{m.ns}: {m.splits} split(s), {m.moved} chunk(s) moved, {m.left} left{failed}"
            )
    sys.stdout.write("".join(f"{line}\n" for line in lines))
    sys.stdout.flush()
    stderr.print(
        f"zonectl: rotated {len(window.moves)} window(s): {result.ops_done}/{result.ops_total} "
        f"op(s) (plan {result.plan_id}, rotate {result.apply_id}); balancing restored",
        markup=False,
    )
    return int(ExitCode.OK)


def _listing(title: str, problems: Sequence[str]) -> str:
    return f"{title} ({len(problems)} problem(s)):\n  " + "\n  ".join(problems)
