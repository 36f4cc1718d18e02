"""window_boundary and next_tick: the keep-th most recent tick <= now, DST-correct."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.firehose import next_tick, window_boundary
from zonectl.model.desired import Firehose

UTC = dt.UTC


def fh(schedule: str = "0 0 * * *", timezone: str = "UTC", keep: int = 1) -> Firehose:
    return Firehose(
        field="ts", type="date", schedule=schedule, timezone=timezone, keep=keep, hot="hot"
    )


def at(*args: int, tz: str = "UTC") -> dt.datetime:
    return dt.datetime(*args, tzinfo=ZoneInfo(tz))  # type: ignore[misc]


def z(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("keep", "expected"), [(1, z(2026, 5, 10)), (2, z(2026, 5, 9)), (3, z(2026, 5, 8))]
)
def test_boundary_is_the_keep_th_most_recent_daily_tick(keep: int, expected: dt.datetime) -> None:
    assert window_boundary(fh(keep=keep), z(2026, 5, 10, 13, 45)) == expected


def test_a_tick_exactly_at_now_counts() -> None:
    assert window_boundary(fh(), z(2026, 5, 10)) == z(2026, 5, 10)
    assert window_boundary(fh(), z(2026, 5, 10) - dt.timedelta(microseconds=1)) == z(2026, 5, 9)


def test_a_run_after_missed_days_gives_the_boundary_an_on_time_run_would() -> None:
    policy = fh(keep=2)
    every_run = [window_boundary(policy, z(2026, 5, d, 0, 10)) for d in range(10, 15)]
    assert every_run == [z(2026, 5, d) for d in range(9, 14)]
    # Runs on the 11th..13th never happened: the 14th's run lands where the on-time one did,
    # and a late run the same day does too (nothing remembers the last run).
    assert window_boundary(policy, z(2026, 5, 14, 0, 10)) == every_run[-1]
    assert window_boundary(policy, z(2026, 5, 14, 23, 59)) == every_run[-1]


def test_repeated_runs_at_the_same_instant_agree() -> None:
    now = z(2026, 7, 1, 9, 30)
    policy = fh("*/15 * * * *", "Asia/Kolkata", keep=3)
    assert {window_boundary(policy, now) for _ in range(5)} == {z(2026, 7, 1, 9, 0)}


def test_boundary_is_returned_in_utc() -> None:
    boundary = window_boundary(fh(timezone="Asia/Tokyo"), at(2026, 5, 10, 12, tz="Asia/Tokyo"))
    assert boundary.utcoffset() == dt.timedelta(0)
    assert boundary == z(2026, 5, 9, 15)  # local midnight in Tokyo


def test_now_may_be_given_in_any_offset() -> None:
    policy = fh(timezone="Europe/Berlin")
    assert window_boundary(policy, z(2026, 5, 10, 12)) == window_boundary(
        policy, at(2026, 5, 10, 8, tz="America/New_York")
    )


# --- DST: Europe/Berlin springs forward 2026-03-29 02:00 CET -> 03:00 CEST (01:00Z) and
# falls back 2026-10-25 03:00 CEST -> 02:00 CET (01:00Z). New York: 2026-03-08 02:00 EST
# -> 03:00 EDT (07:00Z), 2026-11-01 02:00 EDT -> 01:00 EST (06:00Z).


@pytest.mark.parametrize(
    ("tz", "now", "ticks"),
    [
        (  # spring forward: the day is 23 hours long
            "Europe/Berlin",
            z(2026, 3, 30, 12),
            [z(2026, 3, 29, 22), z(2026, 3, 28, 23), z(2026, 3, 27, 23)],
        ),
        (  # fall back: the day is 25 hours long
            "Europe/Berlin",
            z(2026, 10, 26, 12),
            [z(2026, 10, 25, 23), z(2026, 10, 24, 22), z(2026, 10, 23, 22)],
        ),
        (
            "America/New_York",
            z(2026, 3, 9, 12),
            [z(2026, 3, 9, 4), z(2026, 3, 8, 5), z(2026, 3, 7, 5)],
        ),
        (
            "America/New_York",
            z(2026, 11, 2, 12),
            [z(2026, 11, 2, 5), z(2026, 11, 1, 4), z(2026, 10, 31, 4)],
        ),
    ],
)
def test_daily_midnight_follows_local_midnight_across_dst(
    tz: str, now: dt.datetime, ticks: list[dt.datetime]
) -> None:
    got = [window_boundary(fh("0 0 * * *", tz, keep=k), now) for k in (1, 2, 3)]
    assert got == ticks


def test_a_0230_tick_skipped_by_spring_forward_fires_at_the_transition() -> None:
    policy = fh("30 2 * * *", "Europe/Berlin", keep=2)
    # 02:30 does not exist on 2026-03-29; cron runs it when the clock jumps to 03:00 CEST.
    assert window_boundary(policy, z(2026, 3, 30, 12)) == z(2026, 3, 29, 1)
    assert window_boundary(fh("30 2 * * *", "Europe/Berlin"), z(2026, 3, 29, 1)) == z(
        2026, 3, 29, 1
    )
    assert window_boundary(fh("30 2 * * *", "Europe/Berlin"), z(2026, 3, 29, 0, 59)) == z(
        2026, 3, 28, 1, 30
    )
    ny = fh("30 2 * * *", "America/New_York")
    assert window_boundary(ny, z(2026, 3, 8, 12)) == z(2026, 3, 8, 7)


def test_a_0230_tick_repeated_by_fall_back_fires_once_at_its_first_occurrence() -> None:
    policy = fh("30 2 * * *", "Europe/Berlin")
    # 02:30 CEST = 00:30Z, and 02:30 CET = 01:30Z; only the first is a tick, so keep=2
    # still reaches back a whole day (croniter's own aware mode yields both).
    assert window_boundary(policy, z(2026, 10, 25, 1, 45)) == z(2026, 10, 25, 0, 30)
    assert window_boundary(fh("30 2 * * *", "Europe/Berlin", keep=2), z(2026, 10, 25, 1, 45)) == z(
        2026, 10, 24, 0, 30
    )
    assert next_tick(policy, z(2026, 10, 25, 0, 30)) == z(2026, 10, 26, 1, 30)
    ny = fh("30 1 * * *", "America/New_York", keep=2)
    assert window_boundary(ny, z(2026, 11, 2, 12)) == z(2026, 11, 1, 5, 30)


def test_hourly_ticks_across_spring_forward_are_each_real_hour() -> None:
    policy = fh("0 * * * *", "Europe/Berlin")
    boundaries = [
        window_boundary(policy, z(2026, 3, 29, 0, 30) + dt.timedelta(hours=h)) for h in range(4)
    ]
    assert boundaries == [
        z(2026, 3, 29, 0),
        z(2026, 3, 29, 1),
        z(2026, 3, 29, 2),
        z(2026, 3, 29, 3),
    ]
    ticks = [
        window_boundary(fh("0 * * * *", "Europe/Berlin", keep=k), z(2026, 3, 29, 2))
        for k in (1, 2, 3)
    ]
    assert ticks == [z(2026, 3, 29, 2), z(2026, 3, 29, 1), z(2026, 3, 29, 0)]


def test_hourly_ticks_across_fall_back_skip_the_repeated_hour() -> None:
    policy = fh("0 * * * *", "Europe/Berlin")
    # 02:00 CEST (00:00Z) ticks; 02:00 CET (01:00Z) is the same wall time again: no tick.
    assert window_boundary(policy, z(2026, 10, 25, 1, 30)) == z(2026, 10, 25, 0)
    assert next_tick(policy, z(2026, 10, 25, 0)) == z(2026, 10, 25, 2)
    assert next_tick(policy, z(2026, 10, 25, 1, 30)) == z(2026, 10, 25, 2)
    assert window_boundary(fh("0 * * * *", "Europe/Berlin", keep=2), z(2026, 10, 25, 2)) == z(
        2026, 10, 25, 0
    )


def test_in_the_second_pass_of_a_repeated_hour_its_earlier_ticks_already_count() -> None:
    policy = fh("45 2 * * *", "Europe/Berlin")
    # now is 02:15 CET (second pass); 02:45 already fired in the first pass (00:45Z).
    assert window_boundary(policy, z(2026, 10, 25, 1, 15)) == z(2026, 10, 25, 0, 45)
    assert next_tick(policy, z(2026, 10, 25, 1, 15)) == z(2026, 10, 26, 1, 45)


def test_next_tick_is_strictly_after_now() -> None:
    assert next_tick(fh(), z(2026, 5, 10)) == z(2026, 5, 11)
    assert next_tick(fh(), z(2026, 5, 9, 23, 59, 59)) == z(2026, 5, 10)
    assert next_tick(fh("30 2 * * *", "Europe/Berlin"), z(2026, 3, 28, 12)) == z(2026, 3, 29, 1)


def test_a_schedule_that_never_fires_is_a_clear_value_error() -> None:
    with pytest.raises(ValueError, match="never fires"):
        window_boundary(fh("0 0 30 2 *"), z(2026, 5, 10))
    with pytest.raises(ValueError, match="never fires"):
        next_tick(fh("0 0 31 4 *"), z(2026, 5, 10))


def test_an_unknown_time_zone_is_a_clear_value_error() -> None:
    with pytest.raises(ValueError, match="unknown time zone 'Europe/Atlantis'"):
        window_boundary(fh(timezone="Europe/Atlantis"), z(2026, 5, 10))


def test_a_naive_now_is_refused() -> None:
    with pytest.raises(ValueError, match="no time zone"):
        window_boundary(fh(), dt.datetime(2026, 5, 10))


def test_keep_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="keep must be at least 1"):
        window_boundary(fh(keep=0), z(2026, 5, 10))


ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"]
SCHEDULES = ["0 0 * * *", "30 2 * * *", "0 * * * *", "*/20 * * * *", "15 3 * * 1", "0 0 1 * *"]
instants = st.datetimes(
    min_value=dt.datetime(2024, 1, 1), max_value=dt.datetime(2030, 12, 31), timezones=st.just(UTC)
)


@settings(max_examples=150, deadline=None)
@given(
    now=instants,
    later=st.timedeltas(min_value=dt.timedelta(0), max_value=dt.timedelta(days=3)),
    tz=st.sampled_from(ZONES),
    schedule=st.sampled_from(SCHEDULES),
    keep=st.integers(1, 3),
)
def test_boundary_is_at_or_before_now_and_never_moves_backwards(
    now: dt.datetime, later: dt.timedelta, tz: str, schedule: str, keep: int
) -> None:
    policy = fh(schedule, tz, keep)
    boundary = window_boundary(policy, now)
    assert boundary <= now
    assert window_boundary(policy, now + later) >= boundary


@settings(max_examples=150, deadline=None)
@given(now=instants, tz=st.sampled_from(ZONES), schedule=st.sampled_from(SCHEDULES))
def test_next_tick_is_the_next_boundary(now: dt.datetime, tz: str, schedule: str) -> None:
    policy = fh(schedule, tz)
    upcoming = next_tick(policy, now)
    assert upcoming > now
    assert window_boundary(policy, upcoming) == upcoming
    # Nothing ticks in between: just before it, the boundary is still today's.
    assert window_boundary(policy, upcoming - dt.timedelta(microseconds=1)) == window_boundary(
        policy, now
    )
    # keep=2 at the next tick is keep=1 now: the window slides by exactly one tick.
    assert window_boundary(fh(schedule, tz, keep=2), upcoming) == window_boundary(policy, now)


@settings(max_examples=60, deadline=None)
@given(day=st.dates(dt.date(2024, 1, 1), dt.date(2030, 12, 31)), tz=st.sampled_from(ZONES))
def test_a_daily_schedule_ticks_exactly_once_per_local_day(day: dt.date, tz: str) -> None:
    zone = ZoneInfo(tz)
    end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), zone).astimezone(UTC)
    for schedule in ("0 0 * * *", "30 2 * * *", "0 1 * * *"):
        newest = window_boundary(fh(schedule, tz), end - dt.timedelta(microseconds=1))
        previous = window_boundary(fh(schedule, tz, keep=2), end - dt.timedelta(microseconds=1))
        assert newest.astimezone(zone).date() == day
        assert previous.astimezone(zone).date() == day - dt.timedelta(days=1)
