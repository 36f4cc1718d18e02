"""An idempotent command (Op.idempotent) whose connection reset is sent again, a bounded
number of times with a short backoff, instead of ending the run: a second send leaves the
cluster as one and answers ok. Any other op's reset still ends the run (outcome unknown)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from zonectl.apply.move_lookup import BACKOFF_S, RESETS_IN_A_ROW, Resets
from zonectl.apply.reach import check_reach
from zonectl.plan.failures import OutcomeUnknownError

T = TypeVar("T")


def send_resent(
    send: Callable[[], T],
    what: str,
    idempotent: bool,
    note: Callable[[str], None],
    resets: Resets,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """`send()`'s answer; after a connection reset, `send()` again if `idempotent`, up to
    RESETS_IN_A_ROW sends in all. Each reset is counted in `resets` (the apply summary)."""
    sends = 0
    while True:
        try:
            return send()
        except OutcomeUnknownError:
            sends += 1
            if not idempotent:
                raise
            if sends >= RESETS_IN_A_ROW:
                resets.count("gave_up")
                raise
        check_reach(what)  # the mongos stayed away: stop (exit 5), do not send again
        resets.count("resent")
        note(
            f"{what}: the connection reset before its answer; sent again (the command is "
            "idempotent: a second send leaves the cluster as one)"
        )
        sleep(BACKOFF_S * sends)
