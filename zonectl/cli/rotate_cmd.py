"""`zonectl rotate`: move every firehose window to its boundary at an instant, through
apply's lease, per-collection pause and journal; quiet and write-free when nothing is due.
The window plan and its checks are zonectl.session.rotate; this module runs its steps."""

from __future__ import annotations

import datetime as dt
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from zonectl.apply.ports import Ports
from zonectl.apply.progress import ConsoleEvents
from zonectl.apply.run import ApplyOptions, Prepared, Preview, run_apply
from zonectl.cli.apply_wiring import echo_listeners, parse_duration
from zonectl.cli.common import load_desired, parse_at, uri_option, uri_origin, warn
from zonectl.cli.connection import Connection, open_cluster
from zonectl.cli.error_boundary import guarded, stderr
from zonectl.cli.fleet.context import FleetSpec
from zonectl.cli.fleet.options import fleet_command
from zonectl.cli.metrics_out import MetricsRun, metrics_file_option, named_namespaces
from zonectl.cli.migrate_options import budget_option, check_parallel, parallel_option
from zonectl.cli.ns_option import namespace_option
from zonectl.cli.rotate_clock import (
    DEFAULT_MAX_SKEW,
    allow_backwards_option,
    max_clock_skew_option,
)
from zonectl.cli.rotate_report import report
from zonectl.environment import Settings
from zonectl.errors import ExitCode, NeedsHumanError, ZonectlError
from zonectl.plan.restrict import WindowPlan, window_namespaces
from zonectl.render import render_text
from zonectl.session.clock import check_skew, future_warning
from zonectl.session.notice import Notice
from zonectl.session.ports import build_ports
from zonectl.session.rotate import Rotation, Scope, rotate_scope, select


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
        namespace_option(
            "Rotate only these namespaces (repeatable): their windows and placements.",
            scope="the policy names",
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
    desired = load_desired(paths)
    if not window_namespaces(desired) and not desired.patterns:
        warn("the policy has no firehose windows or namespace patterns: nothing to rotate")
        return int(ExitCode.OK)
    scope = rotate_scope(desired)  # before any connection: an invalid policy is exit 3
    options = ApplyOptions(
        wait_timeout_s=parse_duration(wait_timeout, "--wait-timeout") or 0.0,
        migrate_budget_s=parse_duration(migrate_budget, "--budget"),
        parallel=check_parallel(parallel),
        operation="rotate",
    )
    scanned = named_namespaces(desired)  # the metrics of a cron run cover what it manages
    with open_cluster(uri, uri_origin(uri), listeners=echo_listeners(verbose)) as conn:
        run.ran = conn.local()  # the run's own time in the metrics file, even when it fails
        ports = build_ports(conn, settings.database)
        try:
            rotation = _start(conn, scope, given, only, rules)
            run.now = rotation.instant  # the figures' instant: the windows as of --at
            window, eager, due = _survey(rotation, ports, migrate, rules)
        except NeedsHumanError as exc:  # refused (skew, backwards): say what a dead run left
            if _left_open(ports):
                exc.hint = (f"{exc.hint}; " if exc.hint else "") + (
                    "a previous run left balancing paused and its journal open: "
                    "`zonectl recover` restores it"
                )
            raise
        if not due and not ports.journal.find_open():
            if sys.stderr.isatty():
                stderr.print(
                    f"zonectl: nothing due at {rotation.instant:%Y-%m-%dT%H:%M:%SZ}", markup=False
                )
            observed = rotation.scope.desired
            run.observe(conn, now=rotation.instant, desired=observed, namespaces=scanned)
            return int(ExitCode.OK)  # nothing sent: not even the lease (reads only)
        if due and not yes and not sys.stdin.isatty():
            raise ZonectlError(
                "refusing to rotate without confirmation: stdin is not a terminal",
                hint="review with `zonectl plan`, then rerun with --yes (as cron does)",
            )
        ran: list[WindowPlan] = []

        def prepare() -> Prepared:
            # re-read under the lease: another run may have rotated
            current, actual, said = rotation.plan_now()
            _say(said)
            ran.append(current)
            prepared = rotation.prepared(current, actual, eager)
            for message in prepared.plan.warnings[len(current.plan.warnings) :]:
                warn(message)  # the disk guard's notices (dbStats refused, no sizes)
            return prepared

        events = ConsoleEvents(stderr, quiet=not sys.stderr.isatty(), clock=conn.clock)
        result = run_apply(ports, options, prepare, _confirm(yes), events)
        run.observe(conn, now=rotation.instant, desired=rotation.scope.desired, namespaces=scanned)
    return report(result, ran[-1] if ran else window)


def _left_open(ports: Ports) -> bool:
    """An unfinished run's journal is open (its pauses not restored); False when it cannot
    be read: the refusal being raised says more than a privilege error would."""
    try:
        return bool(ports.journal.find_open())
    except ZonectlError:
        return False


def _start(
    conn: Connection,
    scope: Scope,
    given: dt.datetime | None,
    only: list[str] | None,
    rules: TimeRules,
) -> Rotation:
    """The run's scope and instant: --namespace checked (a typo is exit 2, before the
    clocks are compared or anything is sent), then the clocks unless --at is given."""
    if only:
        scope = select(conn, scope, only, given or conn.local())
    if given is None:
        _say(check_skew(conn, rules.max_skew_s))  # the boundary follows conn.local
    instant = given or conn.local()
    return Rotation.at(conn, scope, instant, given=given is not None, allow=rules.allow_backwards)


def _survey(
    rotation: Rotation, ports: Ports, migrate: bool, rules: TimeRules
) -> tuple[WindowPlan, list[str], bool]:
    """Read-only: the preflight's checks and drift, the window plan now, the namespaces to
    migrate and whether anything is due; each warning shown as it is found."""
    first, drift = rotation.preflight()
    for notice in drift:
        _say(notice)
    window, _, said = rotation.plan_now()
    _say(said)
    if window.left:  # the preflight's drift covers named namespaces; these matched
        warn(
            f"{len(window.left)} change(s) of pattern-matched namespaces are left for "
            "`zonectl apply`:",
            [f"~ {op.describe()}" for op in window.left],
        )
    eager = [ns for ns in rotation.scope.names if migrate and ns in first.collections]
    due = rotation.is_due(ports, window, eager)
    if due and rotation.given:
        _say(future_warning(rotation.conn, rotation.instant, rules.max_skew_s))
    return window, eager, due


def _say(notice: Notice | None) -> None:
    if notice is not None:
        warn(notice.message, notice.details)


@dataclass(frozen=True)
class TimeRules:
    max_skew_s: float  # --max-clock-skew
    allow_backwards: bool


def _confirm(yes: bool) -> Callable[[Prepared, Sequence[Preview]], bool]:
    def confirm(prepared: Prepared, previews: Sequence[Preview]) -> bool:
        if yes:
            return True
        stderr.print_text(render_text(prepared.plan), end="")
        if not sys.stdin.isatty():
            raise ZonectlError("refusing to rotate without confirmation: stdin is not a terminal")
        return bool(typer.confirm("Rotate these windows?", default=False, err=True))

    return confirm
