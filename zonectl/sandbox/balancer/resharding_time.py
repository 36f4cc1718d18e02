"""How long a resharding takes on the sandbox clock: its phases from the bytes each shard
sends and receives at the sandbox's own copy rate.

MongoDB's phases (manual "Resharding Process"; resharding_coordinator_service.cpp):
1. cloning: every recipient copies its new share from *every* donor at once, the data that
   stays on a shard included (it is rewritten into the temporary collection
   `<db>.system.resharding.<uuid>`). A shard's time is the larger of what it sends and what
   it receives, at that shard's copy rate (balancer/costs.py); the phase lasts as long as
   the slowest shard. All shards work in parallel: no one-migration-per-shard limit.
2. applying (oplog catch-up): the writes made during cloning. The sandbox has no write
   load, so this is a fixed share of the cloning time (a guess: 2 %, at least 5 s).
3. the coordinator enters the critical section no sooner than
   `reshardingMinimumOperationDurationMillis` (default 300000 ms) after the start.
4. blocking-writes: the critical section, about 2 s (manual: "blocks writes for two
   seconds or less"), then the commit.
These costs are the sandbox's; zonectl's forecast never imports them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass

MINIMUM_DURATION = dt.timedelta(milliseconds=300_000)  # reshardingMinimumOperationDurationMillis
CRITICAL_SECTION = dt.timedelta(seconds=2)
CATCH_UP_SHARE = 0.02
CATCH_UP_FLOOR = dt.timedelta(seconds=5)


@dataclass(frozen=True)
class Phases:
    """Instants of one resharding, from its start."""

    start: dt.datetime
    clone_end: dt.datetime
    apply_end: dt.datetime
    critical_start: dt.datetime
    commit: dt.datetime

    def state_at(self, now: dt.datetime) -> str:
        """The coordinator state (CoordinatorStateEnum) at `now`."""
        if now < self.clone_end:
            return "cloning"
        if now < self.critical_start:
            return "applying"
        if now < self.commit:
            return "blocking-writes"
        return "committing"


def clone_seconds(
    sent: Mapping[str, int], received: Mapping[str, int], rate_of: Callable[[str], float]
) -> float:
    """The slowest shard: its bytes sent or received (the larger) at its own copy rate
    (balancer/costs.py: the cluster file's per-shard rates, else the default)."""
    shards = set(sent) | set(received)
    return max((max(sent.get(s, 0), received.get(s, 0)) / rate_of(s) for s in shards), default=0.0)


def phases(
    start: dt.datetime,
    sent: Mapping[str, int],
    received: Mapping[str, int],
    rate_of: Callable[[str], float],
    minimum: dt.timedelta = MINIMUM_DURATION,
) -> Phases:
    cloning = dt.timedelta(seconds=clone_seconds(sent, received, rate_of))
    catch_up = max(CATCH_UP_FLOOR, cloning * CATCH_UP_SHARE)
    clone_end = start + cloning
    apply_end = clone_end + catch_up
    critical = max(apply_end, start + minimum)
    return Phases(start, clone_end, apply_end, critical, critical + CRITICAL_SECTION)
