"""A firehose's rolling boundary at an instant: the `keep`-th most recent tick <= now."""

from __future__ import annotations

import datetime as dt
import functools
import itertools
from typing import Any

from zonectl.firehose.encode import encode_boundary
from zonectl.firehose.schedule import next_instant, ticks_at_or_before
from zonectl.model.desired import Firehose


def window_boundary(firehose: Firehose, now: dt.datetime) -> dt.datetime:
    """The `keep`-th most recent tick of the schedule at or before `now`, in UTC.

    A pure function of (policy, now): a run after missed ticks computes the same boundary
    as an on-time run would have at that instant, and repeated runs agree.
    """
    if firehose.keep < 1:
        raise ValueError(f"keep must be at least 1, not {firehose.keep}")
    return _boundary(firehose.schedule, firehose.timezone, firehose.keep, now)


@functools.lru_cache(maxsize=256)  # many windows on one schedule: walked once per instant
def _boundary(schedule: str, timezone: str, keep: int, now: dt.datetime) -> dt.datetime:
    ticks = ticks_at_or_before(schedule, timezone, now)
    return list(itertools.islice(ticks, keep))[-1]


def next_tick(firehose: Firehose, now: dt.datetime) -> dt.datetime:
    """The first tick strictly after `now`, in UTC: a window plan made at `now` is stale
    once this instant has passed, because the boundary has moved."""
    return next_instant(firehose.schedule, firehose.timezone, now)


def boundary_value(firehose: Firehose, now: dt.datetime) -> Any:
    """The boundary at `now` as a shard-key value of the firehose's type."""
    return encode_boundary(window_boundary(firehose, now), firehose.type)
