"""The sandbox clock: real time by default, or a fixed instant tests and demos can set.

Balancer active windows, lease expiry and migration durations all read this clock, never
`datetime.now()` directly, so a test can step through a day in milliseconds.
"""

from __future__ import annotations

import datetime as dt
import threading


class Clock:
    def __init__(self, fixed: dt.datetime | None = None) -> None:
        self._fixed = fixed
        self._lock = threading.Lock()

    def now(self) -> dt.datetime:
        with self._lock:
            if self._fixed is not None:
                return self._fixed
        return dt.datetime.now(dt.UTC)

    def set(self, instant: dt.datetime | None) -> None:
        """Freeze the clock at `instant` (aware), or None to follow real time again."""
        if instant is not None and instant.tzinfo is None:
            instant = instant.replace(tzinfo=dt.UTC)
        with self._lock:
            self._fixed = instant

    def advance(self, delta: dt.timedelta) -> None:
        with self._lock:
            base = self._fixed or dt.datetime.now(dt.UTC)
            self._fixed = base + delta
