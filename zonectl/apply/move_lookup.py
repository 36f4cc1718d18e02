"""A move whose connection reset (a load balancer's idle timeout on a long moveRange, a
mongos restarted in a rolling upgrade) is looked up, not given up: if config.chunks shows
the chunk on its destination it counts as moved; otherwise the identical move is sent again,
which joins the migration if it still runs (the donor's active-migrations registry joins an
identical request: mongo:src/mongo/db/s/active_migrations_registry.h) or starts it anew.
After RESETS_IN_A_ROW resets of one move in a row the run gives up, as before."""

from __future__ import annotations

import time
from collections.abc import Callable

from zonectl.errors import ZonectlError
from zonectl.plan.failures import OutcomeUnknownError

RESETS_IN_A_ROW = 3  # resets of one move before the run stops (the link is down)
BACKOFF_S = 0.5  # before the lookup: x1, x2, x3 after each reset in a row


def send_looked_up(
    send: Callable[[], str],
    landed: Callable[[], bool],
    note: Callable[[str], None],
    what: str,
) -> str:
    """`send()`'s outcome; on a reset connection, `landed()` (a read of where the chunk is
    now) decides between "moved" and sending it again."""
    resets = 0
    while True:
        try:
            return send()
        except OutcomeUnknownError:
            resets += 1
            if resets >= RESETS_IN_A_ROW:
                raise
        time.sleep(BACKOFF_S * resets)
        try:
            done = landed()
        except ZonectlError:
            done = False  # the lookup failed too: the resend will say whether the link is back
        if done:
            note(f"{what}: the connection reset during the move; config.chunks shows it done")
            return "moved"
        note(
            f"{what}: the connection reset during the move and it has not committed; sent "
            "again (it joins the migration if that still runs)"
        )
