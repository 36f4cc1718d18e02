"""Cron schedules in a policy's time zone: validation and DST-correct ticks as UTC instants.

The only croniter user in zonectl. croniter walks naive wall-clock times (pure calendar
arithmetic); this module alone decides how a wall-clock tick becomes an instant.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterator

from croniter import CroniterBadCronError, CroniterBadDateError, CroniterError, croniter

from zonectl.time_zones import load_time_zone

# croniter also accepts 6- and 7-field (seconds, year) forms; a policy reviewer reads
# classic 5-field cron, so only that and the common @-aliases are allowed.
_ALIASES = frozenset(
    {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}
)
# Where the never-fires probe starts: any fixed instant works, a 5-field schedule repeats
# within the 28-year calendar cycle, well inside croniter's 50-year search.
_PROBE = dt.datetime(2000, 1, 1)


def validate_schedule(expr: str, timezone: str) -> str | None:
    """None when `expr` is a usable 5-field cron expression in IANA zone `timezone`,
    else a one-line message for the operator."""
    problem = _schedule_problem(expr)
    if problem is not None:
        return problem
    try:
        load_time_zone(timezone)
    except ValueError:
        return f"unknown time zone {timezone!r}; use an IANA name such as 'UTC' or 'Europe/Berlin'"
    return None


@functools.lru_cache(maxsize=256)  # a policy of 1,000 windows shares a few schedules
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


def ticks_at_or_before(expr: str, timezone: str, now: dt.datetime) -> Iterator[dt.datetime]:
    """Distinct UTC instants of the schedule's ticks <= `now`, newest first (unbounded)."""
    zone = _zone(timezone)
    local = _aware(now).astimezone(zone)
    wall = local.replace(tzinfo=None)
    # In the second pass of a repeated hour, later wall times of that hour already fired
    # (at their first occurrence, before `now`): start the walk past them.
    start = wall + _fold_length(wall, zone) + dt.timedelta(seconds=1)
    cron = _cron(expr, start)
    last: dt.datetime | None = None
    while True:
        instant = wall_to_instant(_step(cron, expr, backward=True), zone)
        if instant <= now and instant != last:
            last = instant
            yield instant


@functools.lru_cache(maxsize=256)
def next_instant(expr: str, timezone: str, now: dt.datetime) -> dt.datetime:
    """The UTC instant of the schedule's first tick strictly after `now`."""
    zone = _zone(timezone)
    wall = _aware(now).astimezone(zone).replace(tzinfo=None)
    cron = _cron(expr, wall)
    while True:
        instant = wall_to_instant(_step(cron, expr, backward=False), zone)
        if instant > now:
            return instant


def wall_to_instant(wall: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    """The UTC instant at which a naive wall-clock tick fires in `zone`.

    * A wall time that occurs twice (fall-back) fires once, at its first occurrence, as
      cron runs fixed-time jobs: a daily schedule ticks once per local day, never twice.
    * A wall time skipped by a spring-forward fires at the transition, the first local
      time that exists after it (cron runs such jobs right after the change), so a daily
      "30 2 * * *" still ticks that day instead of leaving a two-day window.

    The mapping never decreases as wall time increases; the tick walkers rely on that.
    """
    first = wall.replace(tzinfo=zone, fold=0).astimezone(dt.UTC)
    if first.astimezone(zone).replace(tzinfo=None) == wall:
        return first
    # Non-existent (PEP 495): fold=0 reads it with the offset from before the transition,
    # landing after it; fold=1 with the offset from after, landing before it.
    low = wall.replace(tzinfo=zone, fold=1).astimezone(dt.UTC)
    high = first
    offset_after = high.astimezone(zone).utcoffset()
    while high - low > dt.timedelta(seconds=1):
        mid = (low + (high - low) / 2).replace(microsecond=0)
        if mid.astimezone(zone).utcoffset() == offset_after:
            high = mid
        else:
            low = mid
    return high


def _fold_length(wall: dt.datetime, zone: dt.tzinfo) -> dt.timedelta:
    """How long `wall` repeats: the offset drop of a fall-back, zero elsewhere."""
    first = wall.replace(tzinfo=zone, fold=0).utcoffset()
    second = wall.replace(tzinfo=zone, fold=1).utcoffset()
    if first is None or second is None or first <= second:
        return dt.timedelta(0)
    return first - second


def _aware(now: dt.datetime) -> dt.datetime:
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"instant {now.isoformat()} has no time zone; pass an aware datetime")
    return now


def _step(cron: croniter, expr: str, *, backward: bool) -> dt.datetime:
    try:
        return cron.get_prev(dt.datetime) if backward else cron.get_next(dt.datetime)
    except CroniterBadDateError:
        # validate_schedule catches this up front; kept for a caller that skipped it.
        raise ValueError(f"cron expression {expr!r} never fires") from None


def _zone(timezone: str) -> dt.tzinfo:
    try:
        return load_time_zone(timezone)
    except ValueError:
        raise ValueError(
            f"unknown time zone {timezone!r}; use an IANA name such as 'UTC'"
        ) from None


def _cron(expr: str, start: dt.datetime) -> croniter:
    problem = _schedule_problem(expr)
    if problem is not None:
        raise ValueError(problem)
    text = expr.strip()
    return croniter(text.lower() if text.startswith("@") else text, start)
