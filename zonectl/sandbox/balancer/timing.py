"""How long a migration takes in the sandbox: its bytes at the copy rate, at least a floor.

One function for every data move the sandbox simulates (balancer migrations, manual
moveChunk/moveRange, and any later command that copies data, e.g. moveCollection):
`migration_duration(nbytes, copy_rate)`. The arithmetic is `zonectl.forecast.timing`'s,
so zonectl's forecast and the simulated outcome share one cost model. To block a command
until the sandbox clock reaches an instant, use `Balancer.block_until`.
"""

from __future__ import annotations

import datetime as dt

from zonectl.forecast.timing import MIN_MIGRATION_S, copy_seconds
from zonectl.forecast.units import DEFAULT_COPY_RATE

__all__ = [
    "DEFAULT_COPY_RATE",
    "MIN_MIGRATION_S",
    "MOVE_COLLECTION_FLOOR",
    "migration_duration",
    "move_collection_duration",
]

# moveCollection (8.0+) takes "at least 5 minutes" (manual, moveCollection), then copies
# the collection's bytes.
MOVE_COLLECTION_FLOOR = dt.timedelta(minutes=5)


def migration_duration(size_bytes: int, copy_rate: float = DEFAULT_COPY_RATE) -> dt.timedelta:
    """Simulated time to migrate `size_bytes` at `copy_rate` bytes/s (floor included)."""
    return dt.timedelta(seconds=copy_seconds(size_bytes, copy_rate))


def move_collection_duration(size_bytes: int, copy_rate: float = DEFAULT_COPY_RATE) -> dt.timedelta:
    """Simulated time of a moveCollection: the documented floor, then the bytes at
    `copy_rate` bytes/s."""
    return MOVE_COLLECTION_FLOOR + dt.timedelta(seconds=size_bytes / copy_rate)
