"""When a run stops trying to reach its cluster, so that every run ends: the mongos
unreachable for the run's bound (--wait-timeout), or unreachable at all once a SIGTERM came
(a supervisor's stop). From then on nothing more is sent; what could not be restored exits 5
naming `zonectl recover`, the journal left open for it (docs/migration.md)."""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from zonectl.errors import NeedsHumanError

# Set by a SIGTERM (apply's, the fleet's or the CLI's own handler): the process is asked to
# end within seconds, so nothing waits on a cluster that does not answer.
TERMINATING = threading.Event()
# After a SIGTERM, the moves already sent are waited for this long, not to their end.
TERM_GRACE_S = 5.0


@dataclass(frozen=True)
class Reach:
    down_s: Callable[[], float]  # seconds every mongos has failed its heartbeats
    bound_s: float  # --wait-timeout


REACH: contextvars.ContextVar[Reach | None] = contextvars.ContextVar("zonectl_reach", default=None)


@contextlib.contextmanager
def bounded(down_s: Callable[[], float], bound_s: float) -> Iterator[None]:
    """The run in the body gives up on an unreachable cluster after `bound_s`."""
    token = REACH.set(Reach(down_s, bound_s))
    try:
        yield
    finally:
        REACH.reset(token)


def give_up_reason() -> str | None:
    """Why the run must stop trying to reach the cluster now, or None."""
    reach = REACH.get()
    if reach is None:
        return None
    down = reach.down_s()
    if down <= 0:
        return None
    if down >= reach.bound_s:
        return f"the mongos has not answered for {down:.0f}s (--wait-timeout {reach.bound_s:g}s)"
    if TERMINATING.is_set():
        return "the mongos does not answer and the run was asked to stop (SIGTERM)"
    return None


class UnreachableError(NeedsHumanError):
    """The run stopped: its cluster stayed unreachable. Exit 5, journal kept open."""


def check_reach(what: str) -> None:
    """Before trying `what` again: stop the run if the cluster stayed unreachable."""
    reason = give_up_reason()
    if reason is not None:
        raise UnreachableError(
            f"{what}: {reason}; the run stopped, its journal kept",
            hint="when the mongos answers again, run `zonectl recover`, then apply again",
        )
