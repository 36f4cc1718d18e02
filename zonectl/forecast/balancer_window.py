"""The balancer's active window in the config server's time zone: is an instant inside it,
and when does it next open. Windows may span midnight; DST gaps and folds are handled by
reading local wall-clock time the way the server does (`isTimeInBalancingWindow` compares
the local time of day, both ends inclusive)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


class BalancerWindow(Protocol):
    """What the forecast asks of the window in force: `activeWindow` (ActiveWindow) or the
    8.3 day-of-week windows (zonectl.forecast.balancer_day_windows.DayWindows)."""

    def contains(self, instant: dt.datetime) -> bool: ...
    def next_open(self, instant: dt.datetime) -> dt.datetime: ...
    def closes_after(self, instant: dt.datetime) -> dt.datetime: ...
    def close_before(self, instant: dt.datetime) -> int: ...
    def describe(self) -> str: ...
    def as_dict(self) -> dict[str, object]: ...


def parse_hhmm(text: str) -> int:
    """Minutes of the day from `HH:MM`; ValueError otherwise."""
    hh, sep, mm = text.strip().partition(":")
    if not sep or not hh.isdigit() or not mm.isdigit() or int(hh) > 23 or int(mm) > 59:
        raise ValueError(f"{text!r} is not a time of day like 23:00")
    return int(hh) * 60 + int(mm)


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def in_daily(seconds: int, start: int, stop: int) -> bool:
    """`isTimeInBalancingWindow` for one start/stop (minutes) on the local day: both ends
    inclusive; start > stop wraps midnight."""
    start, stop = start * 60, stop * 60
    if stop > start:
        return start <= seconds <= stop
    return seconds >= start or seconds <= stop


def local_seconds(instant: dt.datetime, tz: dt.tzinfo) -> tuple[dt.datetime, int]:
    local = instant.astimezone(tz)
    return local, local.hour * 3600 + local.minute * 60 + local.second


def opening(
    day: dt.date, minutes: int, tz: dt.tzinfo, contains: Callable[[dt.datetime], bool]
) -> dt.datetime | None:
    """The first instant from the wall time `minutes` of `day` that `contains` accepts: a
    start inside a DST gap never shows on the local clock, so scan from just before the gap
    to the first local time inside (the end of the gap)."""
    wall = dt.datetime.combine(day, dt.time(minutes // 60, minutes % 60))
    candidate = wall.replace(tzinfo=tz).astimezone(dt.UTC)
    if candidate.astimezone(tz).replace(tzinfo=None) != wall:
        candidate = wall.replace(tzinfo=tz, fold=1).astimezone(dt.UTC)
    for _ in range(180):
        if contains(candidate):
            return candidate
        candidate += dt.timedelta(minutes=1)
    return None


def first_outside(instant: dt.datetime, contains: Callable[[dt.datetime], bool]) -> dt.datetime:
    """The first whole minute after `instant` that `contains` refuses (within 8 days)."""
    step = dt.timedelta(minutes=1)
    t = instant.replace(second=0, microsecond=0) + step
    for _ in range(8 * 24 * 60):
        if not contains(t):
            return t
        t += step
    return t


@dataclass(frozen=True)
class ActiveWindow:
    start: int  # minutes of the local day
    stop: int
    tz: dt.tzinfo = dt.UTC

    def contains(self, instant: dt.datetime) -> bool:
        return in_daily(local_seconds(instant, self.tz)[1], self.start, self.stop)

    def next_open(self, instant: dt.datetime) -> dt.datetime:
        """`instant` if inside, else the first instant after it inside the window."""
        if self.contains(instant):
            return instant
        local = instant.astimezone(self.tz)
        for days in range(0, 3):
            candidate = opening(
                local.date() + dt.timedelta(days=days), self.start, self.tz, self.contains
            )
            if candidate is not None and candidate > instant:
                return candidate
        raise AssertionError("a daily window opens within two days")

    def closes_after(self, instant: dt.datetime) -> dt.datetime:
        """The first instant after `instant` (inside) that is outside the window."""
        return first_outside(instant, self.contains)

    def close_before(self, instant: dt.datetime) -> int:
        """The close (minutes of the local day) last reached at or before `instant`."""
        return self.stop

    def describe(self) -> str:
        return f"window {hhmm(self.start)}-{hhmm(self.stop)}"

    def as_dict(self) -> dict[str, object]:
        return {"start": hhmm(self.start), "stop": hhmm(self.stop)}
