"""The cost of one migration: its bytes at the copy rate, never less than a floor (the
fixed part: clone setup, catch-up, the critical section and the commit). The sandbox uses
the same function, so a forecast and a simulated run agree by construction on one move."""

from __future__ import annotations

MIN_MIGRATION_S = 1.0  # per-migration floor, seconds


def copy_seconds(nbytes: int, bytes_per_s: float, floor_s: float = MIN_MIGRATION_S) -> float:
    """How long migrating `nbytes` takes at `bytes_per_s`, at least `floor_s`."""
    return max(floor_s, nbytes / bytes_per_s)
