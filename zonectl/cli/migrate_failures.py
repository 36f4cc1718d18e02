"""The end of an apply or rotate whose --migrate moves failed for some namespaces: each
failed namespace named once with the server's reasons, the moves of the other namespaces
that completed, and the exit code that says partial (1, a runtime failure: the run went on
but the cluster is not where the policy wants it)."""

from __future__ import annotations

from zonectl.apply.outcome import ApplyResult
from zonectl.cli.error_boundary import stderr
from zonectl.errors import ExitCode
from zonectl.render.summary import plural


def report_failures(result: ApplyResult) -> int:
    """Print one line per failed namespace and the partial total; the exit code."""
    failed = [m for m in result.migrations if m.failed]
    if not failed:
        return int(ExitCode.OK)
    for m in failed:
        queued = m.commands + m.left
        stderr.print(
            f"zonectl: {m.ns}: {len(m.failed)} of {plural(queued, 'move')} failed: "
            + "; ".join(m.reasons or m.failed),
            markup=False,
        )
    rest = [m for m in result.migrations if not m.failed]
    others = f", {plural(sum(m.moved for m in rest), 'move')} of other namespaces completed"
    stderr.print(
        f"zonectl: partial: {plural(len(failed), 'namespace')} failed{others if rest else ''}; "
        "fix the cause named above and rerun to move the rest (exit 1)",
        markup=False,
    )
    return int(ExitCode.FAILURE)
