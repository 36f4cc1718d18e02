"""Does a firehose hot zone hold its window? The window holds `keep` periods of ingest, plus
one period of headroom: at each tick the oldest period becomes cold, and until the balancer
has moved it off, the hot shards hold it beside the new one. Learned from the window's
recent periods (model/ingest.py), stored compressed as the database's data is, against the
room the hot shards have up to their limits. Pure."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from zonectl.capacity.project import stored_ratio
from zonectl.model.capacity import ShardVolume
from zonectl.model.desired import DesiredState
from zonectl.model.ingest import Ingest

HEADROOM_PERIODS = 1


@dataclass(frozen=True)
class WindowFit:
    namespace: str
    zone: str
    shards: tuple[str, ...]  # the hot zone's shards whose volume is known
    keep: int
    ingest: Ingest
    stored_per_period: int  # one period's ingest on disk
    needed_bytes: int  # (keep + headroom) periods on disk
    held_bytes: int  # what the window holds now, on disk (already in their use)
    room_bytes: int  # what the hot shards may still take up to their limits (< 0: past)

    @property
    def growth_bytes(self) -> int:
        """What the window still adds to the hot shards until it holds all it needs."""
        return max(0, self.needed_bytes - self.held_bytes)

    @property
    def fits(self) -> bool:
        return self.growth_bytes <= self.room_bytes

    @property
    def days_until_full(self) -> float:
        """At one period of ingest per period, until the room is gone (0: gone already)."""
        periods = max(0, self.room_bytes) / self.stored_per_period
        return periods * self.ingest.period_s / 86_400

    @property
    def keep_that_fits(self) -> int:
        """The largest `keep` whose window (and headroom) fits the room; 0: none does."""
        total = self.room_bytes + self.held_bytes
        return max(0, total // self.stored_per_period - HEADROOM_PERIODS)


def fit_window(
    ingest: Ingest,
    keep: int,
    zone: str,
    hot: tuple[str, ...],
    volumes: Mapping[str, ShardVolume],
    desired: DesiredState,
) -> WindowFit | None:
    """None when nothing was taken in lately, or no hot shard's volume is known."""
    known = tuple(s for s in sorted(hot) if s in volumes and volumes[s].known)
    if ingest.per_period <= 0 or not known:
        return None
    ratio = stored_ratio(volumes)
    per_period = max(1, math.ceil(ingest.per_period * ratio))
    room = 0
    for shard in known:
        volume = volumes[shard]
        total, used = volume.total_bytes or 0, volume.used_bytes or 0
        room += int(total * desired.limit_of(shard).ratio) - used
    return WindowFit(
        ingest.namespace,
        zone,
        known,
        keep,
        ingest,
        per_period,
        (keep + HEADROOM_PERIODS) * per_period,
        math.ceil(ingest.window_bytes * ratio),
        room,
    )
