"""The balancer's active window in the config server's time zone: is an instant inside it,
and when does it next open. Windows may span midnight; DST gaps and folds are handled by
reading local wall-clock time the way the server does (`isTimeInBalancingWindow` compares
the local time of day, both ends inclusive)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def load_zone(name: str) -> dt.tzinfo:
    """The IANA zone `name` (e.g. Europe/Berlin); ValueError if it does not exist."""
    if name.upper() == "UTC":
        return dt.UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"unknown time zone {name!r}: use an IANA name like Europe/Berlin or UTC"
        ) from None


def parse_hhmm(text: str) -> int:
    """Minutes of the day from `HH:MM`; ValueError otherwise."""
    hh, sep, mm = text.strip().partition(":")
    if not sep or not hh.isdigit() or not mm.isdigit() or int(hh) > 23 or int(mm) > 59:
        raise ValueError(f"{text!r} is not a time of day like 23:00")
    return int(hh) * 60 + int(mm)


@dataclass(frozen=True)
class ActiveWindow:
    start: int  # minutes of the local day
    stop: int
    tz: dt.tzinfo = dt.UTC

    def contains(self, instant: dt.datetime) -> bool:
        local = instant.astimezone(self.tz)
        seconds = local.hour * 3600 + local.minute * 60 + local.second
        start, stop = self.start * 60, self.stop * 60
        if stop > start:
            return start <= seconds <= stop
        return seconds >= start or seconds <= stop

    def next_open(self, instant: dt.datetime) -> dt.datetime:
        """`instant` if inside, else the first instant after it inside the window."""
        if self.contains(instant):
            return instant
        local = instant.astimezone(self.tz)
        for days in range(0, 3):
            day = local.date() + dt.timedelta(days=days)
            wall = dt.datetime.combine(day, dt.time(self.start // 60, self.start % 60))
            candidate = wall.replace(tzinfo=self.tz).astimezone(dt.UTC)
            if candidate.astimezone(self.tz).replace(tzinfo=None) != wall:
                # A start inside a DST gap never shows on the local clock: scan from just
                # before the gap to the first local time inside (the end of the gap).
                candidate = wall.replace(tzinfo=self.tz, fold=1).astimezone(dt.UTC)
            if candidate <= instant:
                continue
            for _ in range(180):
                if self.contains(candidate):
                    return candidate
                candidate += dt.timedelta(minutes=1)
        raise AssertionError("a daily window opens within two days")

    def closes_after(self, instant: dt.datetime) -> dt.datetime:
        """The first instant after `instant` (inside) that is outside the window."""
        step = dt.timedelta(minutes=1)
        t = instant.replace(second=0, microsecond=0) + step
        for _ in range(2 * 24 * 60):
            if not self.contains(t):
                return t
            t += step
        return t
