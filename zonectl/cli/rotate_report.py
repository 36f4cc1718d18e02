"""What `zonectl rotate` prints when it ran: what moved per namespace on stdout, the
one-line summary on stderr."""

from __future__ import annotations

import sys

from zonectl.apply.run import ApplyResult
from zonectl.cli.apply_wiring import ops_done
from zonectl.cli.common import warn
from zonectl.cli.error_boundary import stderr
from zonectl.cli.migrate_failures import report_failures
from zonectl.errors import ExitCode
from zonectl.plan.restrict import WindowPlan
from zonectl.render.summary import plural


def report(result: ApplyResult, window: WindowPlan) -> int:
    """stdout: what moved, per namespace; stderr: the one-line summary."""
    for message in result.warnings:
        warn(message)
    if not result.apply_id:
        return int(ExitCode.OK)
    lines = []
    moved = {m.ns for m in window.moves}
    for op in window.plan.ops:  # what pattern rules did to namespaces they matched
        ns = op.namespace
        if ns is not None and ns not in moved and ns in window.plan.origins:
            lines.append(f"{ns} (from pattern {window.plan.origins[ns]!r}): {op.describe()}")
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
                f"{m.ns}: {plural(m.splits, 'split')}, {plural(m.moved, 'chunk')} moved, "
                f"{m.left} left{failed}"
            )
    sys.stdout.write("".join(f"{line}\n" for line in lines))
    sys.stdout.flush()
    stderr.print(
        f"zonectl: rotated {len(window.moves)} window(s)"
        f"{_pattern_count(window)}: {ops_done(result)} "
        f"(plan {result.plan_id}, rotate {result.apply_id}){result.resets.describe()}; "
        "balancing restored",
        markup=False,
    )
    return report_failures(result)


def _pattern_count(window: WindowPlan) -> str:
    moved = {m.ns for m in window.moves}
    placed = {
        op.namespace
        for op in window.plan.ops
        if op.namespace in window.plan.origins and op.namespace not in moved
    }
    return f" and placed {len(placed)} pattern namespace(s)" if placed else ""
