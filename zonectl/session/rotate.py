"""rotate's pipeline on one connection: windows placed at the instant, patterns expanded
afresh (new collections placed), the window plan made (refused when a window cannot be
placed or would move back), impacts attached; drift outside windows reported, not touched."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from zonectl.apply.ports import Ports
from zonectl.apply.run import Prepared, preview_migration
from zonectl.errors import InvalidPolicyError, PlanError
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState, Firehose
from zonectl.mongo.connect import Connection
from zonectl.mongo.key_sample import read_top_key_values
from zonectl.mongo.resolve import read_resolved
from zonectl.mongo.state import read_cluster_state
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
from zonectl.session.capacity import with_capacity
from zonectl.session.checks import with_impacts
from zonectl.session.clock import check_backwards
from zonectl.session.namespaces import checked_namespaces, keep_only
from zonectl.session.notice import Notice


@dataclass(frozen=True)
class Scope:
    """What a run rotates: the policy (cut to --namespace), its window namespaces, and the
    --namespace selection (None: everything the policy names)."""

    desired: DesiredState
    names: list[str]
    selected: frozenset[str] | None = None


def rotate_scope(desired: DesiredState) -> Scope:
    """The policy's windows, checked before any connection (an invalid one is exit 3)."""
    names = window_namespaces(desired)
    check_windows(desired, names)
    return Scope(desired, names)


def select(conn: Connection, scope: Scope, only: list[str], at: dt.datetime) -> Scope:
    """--namespace: a typo is exit 2, before the clocks are compared or anything is sent."""
    selected = frozenset(checked_namespaces(conn, scope.desired, only, at))
    names = [ns for ns in scope.names if ns in selected]
    return Scope(keep_only(scope.desired, selected), names, selected)


@dataclass(frozen=True)
class Rotation:
    """One run at `instant` (--at when `given`); `boundaries` of the named windows."""

    conn: Connection
    scope: Scope
    instant: dt.datetime
    given: bool
    allow_backwards: bool
    boundaries: dict[str, Any]
    next_tick: dt.datetime | None

    @classmethod
    def at(
        cls, conn: Connection, scope: Scope, instant: dt.datetime, *, given: bool, allow: bool
    ) -> Rotation:
        boundaries, tick = window_values(scope.desired, scope.names, instant)
        return cls(conn, scope, instant, given, allow, boundaries, tick)

    def preflight(self) -> tuple[ClusterState, list[Notice]]:
        """Read-only checks before anything is sent: each window's key type against a live
        chunk bound (PlanError), and the drift outside windows (returned as warnings)."""
        desired, names = self.scope.desired, self.scope.names
        actual = read_cluster_state(self.conn, desired.collections)
        _check_key_types(self.conn, desired, names, actual)
        try:
            full = make_plan(desired, actual, boundaries=self.boundaries, at=self.instant)
        except PlanError as exc:
            message = f"outside firehose windows the policy cannot be planned: {exc.message}"
            return actual, [Notice(message, tuple(exc.details))]
        drift = drift_ops(full, desired)
        if not drift:
            return actual, []
        return actual, [
            Notice(
                f"{len(drift)} change(s) outside firehose windows are left for `zonectl apply`:",
                tuple(f"~ {op.describe()}" for op in drift),
            )
        ]

    def plan_now(self) -> tuple[WindowPlan, ClusterState, Notice | None]:
        """The window plan read now; PlanError when a window cannot be placed, exit 5 when
        one would move back (a warning instead with --allow-backwards)."""
        # Patterns are expanded afresh each run: a collection created since the last
        # run is placed now (its pins, ranges and windows), the others add nothing.
        resolved = read_resolved(self.conn, self.scope.desired, self.instant)
        actual = resolved.actual
        expanded = keep_only(resolved.desired, self.scope.selected)
        extra = [ns for ns in window_namespaces(expanded) if ns in resolved.origins]
        wanted = {**window_values(expanded, extra, self.instant)[0], **self.boundaries}
        window = make_window_plan(
            expanded, actual, boundaries=wanted, at=self.instant, valid_until=self.next_tick
        )
        window = with_pattern_ops(
            window,
            expanded,
            actual,
            origins=resolved.origins,
            notes=resolved.notes,
            boundaries=wanted,
            at=self.instant,
        )
        problems = window_problems(window, actual)
        if problems:
            raise PlanError(listing("cannot rotate", problems), details=problems)
        back = slices_back(window, self.scope.desired, actual)
        said = check_backwards(
            self.conn, window.moves, back, self.instant, self.given, self.allow_backwards
        )
        return window, actual, said

    def is_due(self, ports: Ports, window: WindowPlan, eager: Sequence[str]) -> bool:
        """Whether the run would send anything: ops in the window plan, or chunks of the
        `eager` namespaces to split or move now (previewed, reads only)."""
        previews = [preview_migration(ports, ns, False) for ns in eager]
        return bool(window.plan.ops) or any(p.splits or p.moves.violating for p in previews)

    def prepared(self, window: WindowPlan, actual: ClusterState, eager: Sequence[str]) -> Prepared:
        """The window plan with its impacts and each shard's volume after it (apply refuses
        a move the disk guard blocks, as for `zonectl apply`), and the namespaces whose
        chunks move now."""
        plan = with_impacts(self.conn, actual, window.plan)
        plan, _ = with_capacity(self.conn, actual, plan, self.scope.desired)
        return Prepared(plan, tuple(eager))


def check_windows(desired: DesiredState, names: Sequence[str]) -> None:
    """A schedule that never fires or a keep below 1 is an invalid policy (exit 3), found
    here even when the policy loader let it through, before any connection is made."""
    from zonectl.firehose import validate_schedule

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


def window_values(
    desired: DesiredState, names: Sequence[str], instant: dt.datetime
) -> tuple[dict[str, Any], dt.datetime | None]:
    """Each window's boundary value at `instant` and the earliest next tick."""
    from zonectl.firehose import boundary_value, next_tick

    values = {ns: boundary_value(_firehose(desired, ns), instant) for ns in names}
    ticks = [next_tick(_firehose(desired, ns), instant) for ns in names]
    return values, min(ticks) if ticks else None


def listing(title: str, problems: Sequence[str]) -> str:
    return f"{title} ({len(problems)} problem(s)):"  # the problems follow as details


def _check_key_types(
    conn: Connection, desired: DesiredState, names: Collection[str], actual: ClusterState
) -> None:
    """Each window's key type against a live chunk bound (PlanError naming each)."""
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


def _firehose(desired: DesiredState, ns: str) -> Firehose:
    fh = desired.collections[ns].firehose
    assert fh is not None
    return fh
