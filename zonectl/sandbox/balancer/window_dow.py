"""Day-of-week balancing windows, `activeWindowDOW` (8.3+, balancer-settings.md §1.4).

Parsed as `BalancerSettingsType` parses it (mongo:src/mongo/s/balancer_configuration.cpp,
8.3; unit tests in balancer_configuration_test.cpp): an array of `{day, start, stop}`, the
day spelled exactly "Monday" ... "Sunday". With the feature on (FCV >= 8.3) a non-empty
array replaces `activeWindow`, which is then neither used nor checked; each entry is an
`activeWindow` on that weekday's own date, so `22:00-06:00` covers both ends of the day.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.errors import CommandError

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

Window = tuple[int, int, int]  # weekday (0 = Monday), start, stop in minutes of the day


def parse_dow(doc: Mapping[str, Any], minutes: Any, enabled: bool) -> tuple[Window, ...] | None:
    """The windows to use, or None (absent, empty, or the feature off: warning 8248700
    "Ignoring activeWindowDOW settings for versions under 8.3"). `minutes` parses "hh:mm"
    (`toPointInTime`) and answers None for a bad one."""
    if "activeWindowDOW" not in doc:
        return None
    entries = doc["activeWindowDOW"]
    if not isinstance(entries, list):
        raise CommandError.of(
            "TypeMismatch",
            f'"activeWindowDOW" had the wrong type. Expected array, found {type_name(entries)}',
        )
    shapes = [_entry(e) for e in entries]  # the parser runs before the feature check
    if not enabled or not shapes:
        return None
    out: list[Window] = []
    for day, start, stop in shapes:
        start_min, stop_min = minutes(start), minutes(stop)
        if start_min is None or stop_min is None:
            raise CommandError.of("BadValue", 'time format must be "hh:mm" in activeWindowDOW')
        if start_min == stop_min:
            raise CommandError.of(
                "BadValue", "start and stop times must be different in activeWindowDOW"
            )
        out.append((DAYS.index(day), start_min, stop_min))
    return tuple(out)


def _entry(entry: Any) -> tuple[str, str, str]:
    if not isinstance(entry, Mapping):
        raise CommandError.of(
            "TypeMismatch",
            f"activeWindowDOW entries must be objects, found {type_name(entry)}",
        )
    if "day" not in entry:
        raise CommandError.of("NoSuchKey", 'Missing expected field "day"')
    day = entry["day"]
    if not isinstance(day, str) or day not in DAYS:
        raise CommandError.of("BadValue", f"invalid day of week: {day}")
    start, stop = entry.get("start"), entry.get("stop")
    if not isinstance(start, str) or not isinstance(stop, str):
        raise CommandError.of("BadValue", "must specify both start and stop of balancing window")
    return day, start, stop


def in_dow_window(windows: tuple[Window, ...], now: dt.datetime) -> bool:
    """`isTimeInBalancingWindow` over today's entries; no entry today: inactive all day."""
    if now.tzinfo is not None:
        now = now.astimezone(dt.UTC)
    seconds = now.hour * 3600 + now.minute * 60 + now.second
    for day, start_min, stop_min in windows:
        if day != now.weekday():
            continue
        start, stop = start_min * 60, stop_min * 60
        if stop > start and start <= seconds <= stop:
            return True
        if stop < start and (seconds >= start or seconds <= stop):
            return True
    return False
