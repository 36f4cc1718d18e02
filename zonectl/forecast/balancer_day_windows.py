"""The 8.3 day-of-week balancing windows (`activeWindowDOW`) as the forecast reads them:
`isTimeInBalancingWindow` checks only today's entries, each one an `activeWindow` on today's
date, so `22:00-06:00` wraps inside its own day (reference balancer-settings §1.4;
mongo:src/mongo/s/balancer_configuration.cpp). No entry today: closed all day."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from zonectl.forecast.balancer_window import (
    first_outside,
    hhmm,
    in_daily,
    local_seconds,
    opening,
    parse_hhmm,
)

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(frozen=True)
class DayWindows:
    entries: tuple[tuple[int, int, int], ...]  # weekday (0 = Monday), start, stop minutes
    tz: dt.tzinfo = dt.UTC

    @classmethod
    def parse(cls, entries: Iterable[Mapping[str, Any]], tz: dt.tzinfo) -> DayWindows:
        """From the stored (or policy) `{day, start, stop}` entries; ValueError for one
        the server would refuse at refresh, KeyError for a missing field."""
        out = []
        for e in entries:
            day = DAYS.index(str(e["day"]))
            start, stop = parse_hhmm(str(e["start"])), parse_hhmm(str(e["stop"]))
            if start == stop:
                raise ValueError("start and stop times must be different in activeWindowDOW")
            out.append((day, start, stop))
        if not out:
            raise ValueError("no day-of-week window")
        return cls(tuple(out), tz)

    def contains(self, instant: dt.datetime) -> bool:
        local, seconds = local_seconds(instant, self.tz)
        return any(
            day == local.weekday() and in_daily(seconds, start, stop)
            for day, start, stop in self.entries
        )

    def next_open(self, instant: dt.datetime) -> dt.datetime:
        """`instant` if inside, else the first instant after it inside some window."""
        if self.contains(instant):
            return instant
        local = instant.astimezone(self.tz)
        for days in range(0, 9):
            date = local.date() + dt.timedelta(days=days)
            found = [
                t
                for day, start, stop in self.entries
                if day == date.weekday()
                # a wrapping entry is open from its own day's midnight too
                for minutes in ((start,) if start < stop else (0, start))
                if (t := opening(date, minutes, self.tz, self.contains)) is not None and t > instant
            ]
            if found:
                return min(found)
        raise AssertionError("a weekly window opens within eight days")

    def closes_after(self, instant: dt.datetime) -> dt.datetime:
        return first_outside(instant, self.contains)

    def close_before(self, instant: dt.datetime) -> int:
        """The close (minutes of the local day) last reached at or before `instant`."""
        t = instant.replace(second=0, microsecond=0)
        for _ in range(8 * 24 * 60):
            if self.contains(t):
                local = t.astimezone(self.tz)
                return local.hour * 60 + local.minute
            t -= dt.timedelta(minutes=1)
        return 0

    def days(self) -> list[dict[str, str]]:
        return [
            {"day": DAYS[day], "start": hhmm(start), "stop": hhmm(stop)}
            for day, start, stop in self.entries
        ]

    def describe(self) -> str:
        shown = ", ".join(f"{d['day']} {d['start']}-{d['stop']}" for d in self.days())
        return f"day-of-week windows {shown}"

    def as_dict(self) -> dict[str, object]:
        return {"activeWindowDOW": self.days()}
