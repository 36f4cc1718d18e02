"""`zonectl rotate`: move every firehose window to its boundary at an instant, through
apply's lease, per-collection pause and journal; quiet and write-free when nothing is due."""

from __future__ import annotations

import datetime as dt
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from zonectl.apply.progress import ConsoleEvents
from zonectl.apply.run import (
    ApplyOptions,
    Prepared,
    Preview,
    preview_migration,
    run_apply,
)
from zonectl.cli.apply_wiring import build_ports, echo_listeners, parse_duration
from zonectl.cli.boundary import guarded, stderr
from zonectl.cli.common import load_desired, parse_at, uri_option, uri_origin, warn
from zonectl.cli.fleet.context import FleetSpec
from zonectl.cli.fleet.options import fleet_command
from zonectl.cli.metrics_out import MetricsRun, metrics_file_option, named_namespaces
from zonectl.cli.migrate_options import budget_option, check_parallel, parallel_option
from zonectl.cli.ns_option import UNKNOWN_HELP, keep_only
from zonectl.cli.policy_plan import policy_namespaces
from zonectl.cli.rotate_clock import (
    DEFAULT_MAX_SKEW,
    allow_backwards_option,
    check_backwards,
    check_skew,
    max_clock_skew_option,
    warn_future,
)
from zonectl.cli.rotate_report import listing, report
from zonectl.errors import ExitCode, InvalidPolicyError, PlanError, ZonectlError
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState, Firehose
from zonectl.mongo import Connection, connect, read_cluster_state, read_impacts
from zonectl.mongo.key_sample import read_top_key_values
from zonectl.mongo.resolve import read_resolved
from zonectl.mongo.unsharded_read import read_move_impacts
from zonectl.plan.planner import make_plan
from zonectl.plan.restrict import (
    WindowPlan,
    drift_ops,
    key_type_problem,
    make_window_plan,
    window_namespaces,
    window_problems,
    with_pattern_ops,
)
from zonectl.plan.slices_back import slices_back
from zonectl.render import render_text
from zonectl.settings import Settings


@guarded
@fleet_command(FleetSpec("rotate", writes=True, files={"metrics_file": ".prom"}, format_param=None))
def command(
    paths: Annotated[list[Path], typer.Argument(help="Policy files or directories.")],
    uri: Annotated[str | None, uri_option()] = None,
    at: Annotated[
        str | None,
        typer.Option(
            help="Rotate as of this instant instead of this host's clock (ISO 8601 with "
            "offset). It writes, as a plain run does; `zonectl plan --at` only shows."
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    migrate: Annotated[
        bool,
        typer.Option("--migrate", help="Also move chunks that left the hot window now."),
    ] = False,
    migrate_budget: Annotated[str | None, budget_option()] = None,
    parallel: Annotated[int | None, parallel_option()] = None,
    wait_timeout: Annotated[
        str,
        typer.Option(
            help="How long to wait for in-flight migrations, or for a mongos that stopped "
            "answering, before giving up."
        ),
    ] = "60s",
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Print every command sent (redacted).")
    ] = False,
    metrics_file: Annotated[Path | None, metrics_file_option()] = None,
    max_clock_skew: Annotated[str, max_clock_skew_option()] = DEFAULT_MAX_SKEW,
    allow_backwards: Annotated[bool, allow_backwards_option()] = False,
    namespaces: Annotated[
        list[str] | None,
        typer.Option(
            "--namespace",
            "-n",
            help="Rotate only these namespaces (repeatable): their windows and placements."
            + UNKNOWN_HELP.format(scope="the policy names"),
        ),
    ] = None,
) -> int:
    """Move each window to its boundary now (or at --at) and place new collections.

    Plans only the hot/cold ranges of firehose collections and applies them
    with apply's safeguards: the lease, balancing of the collection paused
    only while its old ranges are removed and the new ones added, verified
    in config.tags, then restored. Namespace patterns ("logs.*") and
    collection-per-period windows ("metrics.events_%Y%m%d") are expanded
    afresh each run, so collections created since the last run are placed
    (ranges, or moveCollection on 8.0), and slices that aged out move to
    the cold zone. Other drift is reported on stderr and left for `zonectl
    apply`. Safe to run every few minutes: when nothing is new and no window
    is due it prints nothing and sends no write. A missed run catches up.

    Time only goes forward: a window whose live boundary is later than the
    one computed now (after a `--at` in the future, or a clock that jumped
    back) is not moved back without --allow-backwards; and rotate does not
    run when this host's clock and the cluster's (hello.localTime) differ by
    more than --max-clock-skew. Both refusals name the two clocks. Against a
    sandbox (`sandbox:`, or `zonectl sandbox` at any --time-scale) the run
    follows the sandbox's clock, ahead of this host's by design when time
    runs faster, and no skew is checked. `--at`
    replaces this host's clock and writes like a plain run; to see a later
    run's window without writing, use `zonectl plan --at`.

    Exit codes: 0 rotated or nothing due; 1 runtime error (including a
    window that cannot be placed on this cluster), or partial: --migrate
    moves of some namespaces failed (each named); 2 bad option (an unknown
    --namespace among them); 3 invalid policy; 5 needs a human: balancing
    could not be restored (run the printed command), or a window would move
    backwards, or the clocks differ by more than --max-clock-skew (nothing
    was sent).

    Examples:

      zonectl rotate policies/ --uri sandbox:

      zonectl rotate policies/ --yes          # from cron, ZONECTL_URI set

      zonectl rotate policies/ --at 2026-03-02T00:05:00Z --migrate --yes

      zonectl rotate policies/ --yes --metrics-file /var/lib/node_exporter/zonectl.prom

    With --metrics-file, the file gets the metrics of the namespaces the policy
    names after the run (as `status POLICY --format openmetrics` prints them) and
    this run's time, exit code and last success; a failed run keeps the previous
    last success. Reading them sends no write.
    """
    settings = Settings.from_environ(os.environ)
    with MetricsRun(metrics_file, "rotate", uri, settings) as run:
        run.exit_code = _rotate(
            paths,
            uri,
            at,
            yes,
            migrate,
            migrate_budget,
            parallel,
            wait_timeout,
            verbose,
            settings,
            run,
            TimeRules(parse_duration(max_clock_skew, "--max-clock-skew") or 0.0, allow_backwards),
            namespaces or None,
        )
        return run.exit_code


def _rotate(
    paths: list[Path],
    uri: str | None,
    at: str | None,
    yes: bool,
    migrate: bool,
    migrate_budget: str | None,
    parallel: int | None,
    wait_timeout: str,
    verbose: bool,
    settings: Settings,
    run: MetricsRun,
    rules: TimeRules,
    only: list[str] | None = None,
) -> int:
    given = parse_at(at, dt.datetime.now(dt.UTC)) if at else None
    run.now = given or run.now  # the run's time in the metrics file, even when it fails
    desired = load_desired(paths)
    names = window_namespaces(desired)
    if not names and not desired.patterns:
        warn("the policy has no firehose windows or namespace patterns: nothing to rotate")
        return int(ExitCode.OK)
    _check_windows(desired, names)  # before any connection: an invalid policy is exit 3
    options = ApplyOptions(
        wait_timeout_s=parse_duration(wait_timeout, "--wait-timeout") or 0.0,
        migrate_budget_s=parse_duration(migrate_budget, "--budget"),
        parallel=check_parallel(parallel),
        operation="rotate",
    )
    database = settings.database
    scanned = named_namespaces(desired)  # the metrics of a cron run cover what it manages
    with connect(uri, listeners=echo_listeners(verbose), origin=uri_origin(uri)) as conn:
        selected: set[str] | None = None
        if only:  # a typo is exit 2, before the clocks are compared or anything is sent
            resolved = read_resolved(conn, desired, given or conn.local())
            selected = set(policy_namespaces(conn, resolved, only))
            desired = keep_only(desired, selected)
            names = [ns for ns in names if ns in selected]
        if given is None:
            check_skew(conn, rules.max_skew_s)  # the boundary follows conn.local
        instant = given or conn.local()
        run.now = instant
        boundaries, next_tick = _boundaries(desired, names, instant)
        ports = build_ports(conn, database)

        def plan_now() -> tuple[WindowPlan, ClusterState]:
            # Patterns are expanded afresh each run: a collection created since the last
            # run is placed now (its pins, ranges and windows), the others add nothing.
            resolved = read_resolved(conn, desired, instant)
            actual, expanded = resolved.actual, keep_only(resolved.desired, selected)
            extra = [ns for ns in window_namespaces(expanded) if ns in resolved.origins]
            wanted = {**_boundaries(expanded, extra, instant)[0], **boundaries}
            window = make_window_plan(
                expanded, actual, boundaries=wanted, at=instant, valid_until=next_tick
            )
            window = with_pattern_ops(
                window,
                expanded,
                actual,
                origins=resolved.origins,
                notes=resolved.notes,
                boundaries=wanted,
                at=instant,
            )
            problems = window_problems(window, actual)
            if problems:
                raise PlanError(listing("cannot rotate", problems), details=problems)
            back = slices_back(window, desired, actual)
            check_backwards(
                conn, window.moves, back, instant, given is not None, rules.allow_backwards
            )
            return window, actual

        first = _preflight(conn, desired, names, boundaries, instant)
        window, _ = plan_now()
        if window.left:  # the preflight's drift covers named namespaces; these matched
            warn(
                f"{len(window.left)} change(s) of pattern-matched namespaces are left for "
                "`zonectl apply`:",
                [f"~ {op.describe()}" for op in window.left],
            )
        eager = [ns for ns in names if migrate and ns in first.collections]
        previews = [preview_migration(ports, ns, False) for ns in eager]
        due = bool(window.plan.ops) or any(p.splits or p.moves.violating for p in previews)
        if due and given is not None:
            warn_future(conn, given, rules.max_skew_s)
        if not due and not ports.journal.find_open():
            if sys.stderr.isatty():
                stderr.print(f"zonectl: nothing due at {instant:%Y-%m-%dT%H:%M:%SZ}", markup=False)
            run.observe(conn, now=instant, desired=desired, namespaces=scanned)  # reads only
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
            impacts = {
                **read_impacts(conn, actual, current.plan),
                **read_move_impacts(conn, current.plan),
            }
            return Prepared(current.plan.with_impacts(impacts), tuple(eager))

        events = ConsoleEvents(stderr, quiet=not sys.stderr.isatty(), clock=conn.clock)
        result = run_apply(ports, options, prepare, _confirm(yes), events)
        run.observe(conn, now=instant, desired=desired, namespaces=scanned)
    return report(result, ran[-1] if ran else window)


@dataclass(frozen=True)
class TimeRules:
    max_skew_s: float  # --max-clock-skew
    allow_backwards: bool


def _check_windows(desired: DesiredState, names: Sequence[str]) -> None:
    """A schedule that never fires or a keep below 1 is an invalid policy (exit 3), found
    here even when the policy loader let it through, before any connection is made."""
    from zonectl.windows import validate_schedule

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
        raise InvalidPolicyError(listing("invalid firehose window", problems), details=problems)


def _boundaries(
    desired: DesiredState, names: Sequence[str], instant: dt.datetime
) -> tuple[dict[str, Any], dt.datetime | None]:
    """Each window's boundary value at `instant` and the earliest next tick."""
    from zonectl.windows import boundary_value, next_tick

    values = {ns: boundary_value(_firehose(desired, ns), instant) for ns in names}
    ticks = [next_tick(_firehose(desired, ns), instant) for ns in names]
    return values, min(ticks) if ticks else None


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
    checked = {  # unsharded, or a key the planner reports with its position: not checked
        ns: _firehose(desired, ns).field
        for ns in names
        if (live := actual.collections.get(ns)) is not None
        and next(iter(live.key), None) == _firehose(desired, ns).field
    }
    tops = read_top_key_values(conn, actual, checked)  # one aggregate for every window
    for ns in checked:
        fh = _firehose(desired, ns)
        problem = key_type_problem(ns, fh, tops[ns])
        if problem is not None:
            where = fh.position or desired.collections[ns].position
            problems.append(f"{where}: {problem}" if where else problem)
    if problems:
        raise PlanError(listing("cannot rotate", problems), details=problems)
    try:
        full = make_plan(desired, actual, boundaries=boundaries, at=instant)
    except PlanError as exc:
        warn(f"outside firehose windows the policy cannot be planned: {exc.message}", exc.details)
        return actual
    drift = drift_ops(full, desired)
    if drift:
        warn(
            f"{len(drift)} change(s) outside firehose windows are left for `zonectl apply`:",
            [f"~ {op.describe()}" for op in drift],
        )
    return actual


def _confirm(yes: bool) -> Callable[[Prepared, Sequence[Preview]], bool]:
    def confirm(prepared: Prepared, previews: Sequence[Preview]) -> bool:
        if yes:
            return True
        stderr.print_text(render_text(prepared.plan), end="")
        if not sys.stdin.isatty():
            raise ZonectlError("refusing to rotate without confirmation: stdin is not a terminal")
        return bool(typer.confirm("Rotate these windows?", default=False, err=True))

    return confirm
