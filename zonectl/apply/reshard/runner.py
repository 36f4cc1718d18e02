"""One ReshardCollection op, which may run for hours, watched from beside it.

The command is sent on a thread (it answers only when the resharding ends); meanwhile
apply reads the server's figures ($currentOp: bytes copied and to copy, the remaining-time
estimate, the coordinator's state) for the progress bar, and:
- `--budget`: aborts (abortReshardCollection) before the critical section once the
  server's estimate, plus what is left of the minimum duration, cannot end inside it;
- Ctrl-C (or a fleet run's stop, apply/interrupt.py): aborts and waits for the abort to
  finish, then re-raises (exit 130);
- `--detach`: returns once the server shows the resharding running, leaving it there.
The minimum duration is the server default, reshardingMinimumOperationDurationMillis =
300000 (manual); a cluster that changed it is not read here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from zonectl.apply.interrupt import check_stop, holding
from zonectl.apply.migrate import MigrationProgress
from zonectl.apply.ports import ReshardControl
from zonectl.errors import ClusterError
from zonectl.plan.ops import Op

MINIMUM_S = 300.0  # reshardingMinimumOperationDurationMillis default
CRITICAL_S = 2.0  # the critical section (manual: writes blocked about 2 s)
_BEFORE_CRITICAL = ("initializing", "preparing-to-donate", "cloning", "applying", "")


@dataclass
class Outcome:
    status: str  # "done" | "detached" | "aborted"
    detail: str = ""


def check_budget(budget_s: float | None) -> None:
    """A budget shorter than the minimum duration can never be met: refuse before starting."""
    if budget_s is not None and budget_s < MINIMUM_S + CRITICAL_S:
        raise ClusterError(
            f"--budget {budget_s:g}s is shorter than a resharding's minimum duration "
            f"({MINIMUM_S:g}s, reshardingMinimumOperationDurationMillis) plus its critical "
            "section; nothing was changed",
            hint="give --budget at least 5m, or leave it out",
        )


def run_reshard(
    op: Op,
    ns: str,
    *,
    send: Callable[[Op], Mapping[str, Any]],
    control: ReshardControl,
    events: MigrationProgress,
    clock: Callable[[], float],
    budget_s: float | None = None,
    detach: bool = False,
    poll_s: float = 0.2,
) -> Outcome:
    box: dict[str, BaseException] = {}

    def target() -> None:
        try:
            send(op)
        except BaseException as exc:  # handed to the caller's thread below
            box["error"] = exc

    thread = threading.Thread(target=target, name="zonectl-reshard", daemon=True)
    thread.start()
    start = clock()
    total = op.impact.bytes if op.impact is not None else 0
    shown = 0
    said: tuple[str, int] = ("", -1)  # the last state and decile reported
    events.start(ns, 1, max(total, 1))
    try:
        while thread.is_alive():
            thread.join(poll_s)
            if not thread.is_alive():
                break
            check_stop()  # a fleet run's Ctrl-C, seen from its worker thread
            progress = control.read_progress(ns)
            if progress is None:
                continue
            copied = int(progress.share * max(total, 1))
            events.advance(0, max(copied - shown, 0))
            shown = max(shown, copied)
            said = _say(ns, progress, said, events)
            if detach:
                return Outcome("detached", f"state {progress.state or 'unknown'}")
            over = _over_budget(budget_s, clock() - start, progress.elapsed_s, progress)
            if over is not None and progress.state in _BEFORE_CRITICAL:
                events.note(f"{ns}: --budget: {over}; aborting the resharding")
                control.abort(ns)
                thread.join()
                return Outcome("aborted", over)
    except KeyboardInterrupt:
        events.note(f"{ns}: interrupted: aborting the resharding and waiting for the abort")
        with holding(f"the resharding of {ns} (aborting)"):
            control.abort(ns)
            thread.join()
        raise
    finally:
        events.finish()
    error = box.get("error")
    if error is not None:
        raise error
    return Outcome("done")


def _over_budget(budget_s: float | None, spent: float, elapsed_s: int, progress: Any) -> str | None:
    """Why the server's figures say the resharding cannot end inside the budget; None if it can."""
    if budget_s is None or progress.remaining_s is None:
        return None
    left = max(float(progress.remaining_s), MINIMUM_S - elapsed_s) + CRITICAL_S
    if spent + left <= budget_s:
        return None
    return (
        f"the server estimates {left:.0f}s more after {spent:.0f}s, beyond the {budget_s:g}s budget"
    )


def _say(
    ns: str, progress: Any, said: tuple[str, int], events: MigrationProgress
) -> tuple[str, int]:
    """A line at each new state and each tenth copied, in the server's own figures (the
    bar's ETA is rich's; this one is the recipients' remainingOperationTimeEstimatedSecs)."""
    now = (progress.state, int(progress.share * 10))
    if now == said:
        return said
    left = f", about {progress.remaining_s}s left by the server's estimate"
    events.note(
        f"{ns}: resharding {progress.state or 'running'}, {100 * progress.share:.0f}% copied"
        + (left if progress.remaining_s is not None else "")
    )
    return now
