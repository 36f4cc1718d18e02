"""validate_schedule: None for usable schedules, one operator-facing line otherwise."""

from __future__ import annotations

import pytest

from zonectl.firehose import validate_schedule


@pytest.mark.parametrize(
    ("expr", "tz"),
    [
        ("0 0 * * *", "UTC"),
        ("30 2 * * *", "Europe/Berlin"),
        ("*/10 * * * *", "America/New_York"),
        ("0 0 29 2 *", "UTC"),  # fires every four years: rare, but it fires
        ("@daily", "Asia/Tokyo"),
        ("@HOURLY", "UTC"),
    ],
)
def test_validate_schedule_accepts_usable_schedules(expr: str, tz: str) -> None:
    assert validate_schedule(expr, tz) is None


@pytest.mark.parametrize(
    ("expr", "fragment"),
    [
        ("0 0 30 2 *", "never fires"),
        ("0 0 31 4 *", "never fires"),
        ("61 * * * *", "invalid cron expression"),
        ("0 0 * * 8", "invalid cron expression"),
        ("*/0 * * * *", "invalid cron expression"),
        ("* * * *", "has 4 fields; expected 5"),
        ("0 0 * * * *", "has 6 fields; expected 5"),
        ("", "empty cron expression"),
        ("@reboot", "unsupported cron alias"),
    ],
)
def test_validate_schedule_names_the_problem_in_one_line(expr: str, fragment: str) -> None:
    message = validate_schedule(expr, "UTC")
    assert message is not None
    assert fragment in message
    assert "\n" not in message


@pytest.mark.parametrize("tz", ["Mars/Olympus", "", "utc ", "../etc/passwd", "Europe/"])
def test_validate_schedule_rejects_unknown_time_zones(tz: str) -> None:
    message = validate_schedule("0 0 * * *", tz)
    assert message is not None
    assert "unknown time zone" in message


@pytest.mark.parametrize("tz", ["UTC", "utc", "Etc/UTC", "Europe/Berlin"])
def test_validate_schedule_takes_a_zone_as_the_balancer_timezone_does(tz: str) -> None:
    # One loader (zonectl.time_zones) for every time zone a policy names: `utc` is UTC in a
    # firehose window as it is in `balancer.timezone`.
    assert validate_schedule("0 0 * * *", tz) is None
