"""The sandbox clock: virtual (a frozen instant that tests step and blocked commands jump),
or real time, optionally running N times faster (`zonectl sandbox --time-scale N`).

Balancer active windows, lease expiry and migration durations all read this clock, never
`datetime.now()` directly, so a test can step through a day in milliseconds. In virtual
mode a command blocked until a simulated instant (a migration's commit) moves the clock
there once the sandbox has been quiet for a moment (`Balancer.block_until`), so simulated
hours cost no real seconds and parallel clients still see one consistent timeline.
`held()` stops time moving on its own (no quiet jump; a real clock pauses) while a test or
a watcher observes; only `set`/`advance` by the holder move it meanwhile.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
import time
from collections.abc import Iterator


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
        self._holds = 0  # open `held()` blocks: no quiet jump, a real clock paused
        self._paused_at: dt.datetime | None = None  # real mode: the instant it was held at

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
            if self._paused_at is not None:
                return self._paused_at
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
                if self._paused_at is not None:
                    self._paused_at = self._origin_sim

    def advance(self, delta: dt.timedelta) -> None:
        """Move forward by `delta`; a held real clock stays paused, `delta` later."""
        current = self.now()
        with self._lock:
            if self._paused_at is not None and self._fixed is None:
                self._paused_at = current + delta
            else:
                self._fixed = current + delta

    def advance_to(self, instant: dt.datetime) -> bool:
        """Virtual mode: move forward to `instant` (never back); False if not frozen."""
        with self._lock:
            if self._fixed is None:
                return False
            if instant > self._fixed:
                self._fixed = instant
            return True

    def jump_to(self, instant: dt.datetime) -> bool:
        """A quiet waiter's jump (virtual mode): as `advance_to`, but refused (False) while
        the clock is held, so an observer never misses a state between two instants."""
        with self._lock:
            if self._holds or self._fixed is None:
                return False
            if instant > self._fixed:
                self._fixed = instant
            return True

    @contextlib.contextmanager
    def held(self) -> Iterator[Clock]:
        """Hold time still for the block: no waiter jumps a virtual clock, a real (scaled)
        clock pauses and resumes where it stopped. Holds nest and may come from several
        threads; time runs on once the last one ends. `set`/`advance` still move it."""
        with self._lock:
            self._holds += 1
            if self._holds == 1 and self._fixed is None:
                elapsed = (time.monotonic() - self._origin_real) * self._scale
                self._paused_at = self._origin_sim + dt.timedelta(seconds=elapsed)
        try:
            yield self
        finally:
            with self._lock:
                self._holds -= 1
                if self._holds == 0 and self._paused_at is not None:
                    if self._fixed is None:
                        self._origin_real, self._origin_sim = time.monotonic(), self._paused_at
                    self._paused_at = None

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
