"""Whether the balancer's active window is open at a wall-clock time: `activeWindow`, or
the 8.3 day-of-week windows in force. Shared by metrics (render) and the planner's drain
blockers (model/drain_blockers.py), so both read a window the same way."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def in_active_window(
    window: Mapping[str, str] | None,
    local: dt.datetime,
    day_windows: Sequence[Mapping[str, str]] = (),
) -> bool:
    """Whether the wall-clock time `local` is inside a balancer activeWindow
    `{start: "HH:MM", stop: "HH:MM"}` (both ends inclusive at minute granularity, wrapping
    past midnight when stop < start; reference §2.5). No window: always active. Day-of-week
    windows in force (8.3+) replace it: only today's entries count, each wrapping inside
    its own day (balancer-settings §1.4)."""
    if day_windows:
        today = DAYS[local.weekday()]
        return any(in_active_window(d, local) for d in day_windows if d.get("day") == today)
    if not window:
        return True
    start, stop = _minutes(window.get("start")), _minutes(window.get("stop"))
    if start is None or stop is None or start == stop:
        return False  # a malformed window: the balancer skips its rounds (§2.5)
    now = local.hour * 60 + local.minute
    if start <= stop:
        return start <= now <= stop
    return now >= start or now <= stop


def _minutes(text: str | None) -> int | None:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})", text or "")
    if m is None or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        return None
    return int(m.group(1)) * 60 + int(m.group(2))
