"""What a firehose window took in lately: the bytes of its key's ranges for the last few
periods of its schedule (read by zonectl/mongo/ingest_read.py with dataSize), from which
zonectl/capacity/firehose_fit.py learns the ingest per period."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from zonectl.model.capacity import ShardVolume


@dataclass(frozen=True)
class Ingest:
    namespace: str
    database: str
    periods: tuple[int, ...]  # uncompressed bytes of each complete period, newest first
    period_s: float  # the schedule's latest period, in seconds (a day: 86,400)
    window_bytes: int  # what the window holds now: [boundary, MaxKey)
    since: dt.datetime  # start of the oldest period measured

    @property
    def per_period(self) -> int:
        """Mean of the periods that took anything in (a window younger than the periods
        measured is not diluted by the empty ones); 0 when none did."""
        seen = [p for p in self.periods if p > 0]
        return sum(seen) // len(seen) if seen else 0


@dataclass(frozen=True)
class HotZoneInput:
    """What the hot-zone fit of one window needs: its ingest, and the volumes read with the
    dbStats of its database (whose storage / data ratio stores the ingest)."""

    ingest: Ingest
    volumes: Mapping[str, ShardVolume]
