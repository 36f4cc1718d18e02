"""The balancer's main loop in virtual time, for benchmarks and tests: a round, then its
migrations run to their commits on the sandbox clock, then the pause before the next round
(`Balancer::_mainThread`, mongo:src/mongo/db/s/balancer/balancer.cpp: `_endRound` sleeps
kShortBalanceRoundInterval = 1 s after a round that moved chunks, else
kBalanceRoundDefaultInterval = 10 s). Needs a virtual (frozen) clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zonectl.sandbox.balancer.balancer import Balancer

SHORT_INTERVAL = dt.timedelta(seconds=1)
DEFAULT_INTERVAL = dt.timedelta(seconds=10)


def run_rounds_until(
    balancer: Balancer, done: Callable[[], bool], *, limit: dt.timedelta
) -> dt.datetime | None:
    """Run rounds until `done()`; the sandbox instant it became true, None past `limit`."""
    clock = balancer.cluster.clock
    if not clock.frozen:
        raise ValueError("run_rounds_until needs a virtual (frozen) sandbox clock")
    end = clock.now() + limit
    while clock.now() <= end:
        if done():
            return clock.now()
        result = balancer.run_round()
        if result.migrations:
            clock.advance_to(max(m.due for m in result.migrations))
            balancer.poll()
            if done():
                return clock.now()
            clock.advance(SHORT_INTERVAL)
        else:
            clock.advance(DEFAULT_INTERVAL)
    return None
