"""Cron schedules in a policy's time zone: validation and DST-correct ticks as UTC instants.

The only croniter user in zonectl. croniter walks naive wall-clock times (pure calendar
arithmetic); this module alone decides how a wall-clock tick becomes an instant.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import CroniterBadCronError, CroniterBadDateError, CroniterError, croniter

# croniter also accepts 6- and 7-field (seconds, year) forms; a policy reviewer reads
# classic 5-field cron, so only that and the common @-aliases are allowed.
_ALIASES = frozenset(
    {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}
)
# Where the never-fires probe starts: any fixed instant works, a 5-field schedule repeats
# within the 28-year calendar cycle, well inside croniter's 50-year search.
_PROBE = dt.datetime(2000, 1, 1)
# Wall clocks move by at most a few hours around a transition (DST is 1h, rarely 2h);
# scanning this much past `now` in wall time catches ticks of a repeated hour.
_SLACK = dt.timedelta(hours=3)


def validate_schedule(expr: str, timezone: str) -> str | None:
    """None when `expr` is a usable 5-field cron expression in IANA zone `timezone`,
    else a one-line message for the operator."""
    problem = _schedule_problem(expr)
    if problem is not None:
        return problem
    if load_zone(timezone) is None:
        return f"unknown time zone {timezone!r}; use an IANA name such as 'UTC' or 'Europe/Berlin'"
    return None


def _schedule_problem(expr: str) -> str | None:
    text = expr.strip()
    if not text:
        return "empty cron expression; expected 5 fields, e.g. '0 0 * * *'"
    if text.startswith("@"):
        text = text.lower()
        if text not in _ALIASES:
            return f"unsupported cron alias {text!r}; use one of {', '.join(sorted(_ALIASES))}"
    elif len(text.split()) != 5:
        n = len(text.split())
        return (
            f"cron expression {expr!r} has {n} fields; expected 5 "
            "(minute hour day-of-month month day-of-week)"
        )
    try:
        croniter(text, _PROBE).get_next(dt.datetime)
    except CroniterBadDateError:
        return f"cron expression {expr!r} never fires (no matching date exists)"
    except (CroniterBadCronError, CroniterError, ValueError) as exc:
        detail = " ".join(str(exc).split())
        return f"invalid cron expression {expr!r}: {detail}"
    return None


def load_zone(name: str) -> ZoneInfo | None:
    """The IANA zone `name`, or None when it does not exist."""
    if not name or name != name.strip():
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None
