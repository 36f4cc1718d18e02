"""The sandbox clock: virtual (a frozen instant that tests step and blocked commands jump),
or real time, optionally running N times faster (`zonectl sandbox --time-scale N`).

Balancer active windows, lease expiry and migration durations all read this clock, never
`datetime.now()` directly, so a test can step through a day in milliseconds. In virtual
mode a command blocked until a simulated instant (a migration's commit) moves the clock
there once the sandbox has been quiet for a moment (`Balancer.block_until`), so simulated
hours cost no real seconds and parallel clients still see one consistent timeline.
"""

from __future__ import annotations

import datetime as dt
import threading
import time


class Clock:
    def __init__(self, fixed: dt.datetime | None = None, *, scale: float = 1.0) -> None:
        """`fixed`: a frozen (virtual) clock at that instant; else real time x `scale`."""
        if scale <= 0:
            raise ValueError("the time scale must be above zero")
        self._fixed = fixed
        self._scale = scale
        self._origin_real = time.monotonic()
        self._origin_sim = dt.datetime.now(dt.UTC)
        self._lock = threading.Lock()
        self._activity = time.monotonic()

    @classmethod
    def virtual(cls, start: dt.datetime | None = None) -> Clock:
        """A frozen clock at `start` (default: now, to the second)."""
        at = start or dt.datetime.now(dt.UTC).replace(microsecond=0)
        return cls(at if at.tzinfo else at.replace(tzinfo=dt.UTC))

    @property
    def frozen(self) -> bool:
        """True in virtual mode: only `set`, `advance` and blocked commands move it."""
        with self._lock:
            return self._fixed is not None

    @property
    def scale(self) -> float:
        return self._scale

    def now(self) -> dt.datetime:
        with self._lock:
            if self._fixed is not None:
                return self._fixed
            elapsed = (time.monotonic() - self._origin_real) * self._scale
        return self._origin_sim + dt.timedelta(seconds=elapsed)

    def set(self, instant: dt.datetime | None) -> None:
        """Freeze the clock at `instant` (aware), or None to follow real time again."""
        if instant is not None and instant.tzinfo is None:
            instant = instant.replace(tzinfo=dt.UTC)
        with self._lock:
            self._fixed = instant
            if instant is None:
                self._origin_real, self._origin_sim = time.monotonic(), dt.datetime.now(dt.UTC)

    def advance(self, delta: dt.timedelta) -> None:
        current = self.now()
        with self._lock:
            self._fixed = current + delta

    def advance_to(self, instant: dt.datetime) -> bool:
        """Virtual mode: move forward to `instant` (never back); False if not frozen."""
        with self._lock:
            if self._fixed is None:
                return False
            if instant > self._fixed:
                self._fixed = instant
            return True

    def real_seconds(self, simulated: float) -> float:
        """Real seconds that `simulated` seconds take in real-time mode (x scale)."""
        return simulated / self._scale

    # A blocked command jumps virtual time only after the sandbox has been quiet this long,
    # so a client thread that was just released can send its next command first.
    def note_activity(self) -> None:
        """A command arrived or a migration committed: clients are still acting."""
        self._activity = time.monotonic()

    def quiet_for(self, seconds: float) -> bool:
        return time.monotonic() - self._activity >= seconds
