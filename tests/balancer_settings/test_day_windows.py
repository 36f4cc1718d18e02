"""Day-of-week windows (activeWindowDOW, 8.3+) are read as well as written (issue 37 item
4): on a Friday, with only Monday 01:00-05:00 allowed, plan's balancer forecast lands in
Monday's window, also when an activeWindow MongoDB ignores beside them is open now; status
(text, json, html) and the in-window metric show them; validate warns where MongoDB accepts
something it then ignores (reference balancer-settings §1.4, balancer_configuration.cpp)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from tests.analyze.kit import SHARDS, serve_cluster
from tests.balancer_settings.kit import cli, policy

FRIDAY = dt.datetime(2026, 11, 27, 10, 0, tzinfo=dt.UTC)
MONDAY_OPEN = dt.datetime(2026, 11, 30, 1, 0, tzinfo=dt.UTC)
MONDAY_CLOSE = dt.datetime(2026, 11, 30, 5, 0, tzinfo=dt.UTC)
CLUSTER = (
    SHARDS
    + """
collections:
  - {ns: app.big, key: {k: 1}, chunks: 4, keys: {type: int, start: 0, step: 1000},
     distribution: all-on-one, shard: s0}
"""
)
RANGES = (
    "shards: {s0: [a], s1: [a], s2: [b]}\ncollections:\n  app.big:\n    ranges:\n"
    "      - {zone: b, min: {k: {$minKey: 1}}, max: {k: {$maxKey: 1}}}\n"
)
MONDAY = '  activeWindowDOW:\n    - {day: Monday, start: "01:00", stop: "05:00"}\n'


def _served(sandbox_server: Any, version: str = "8.3") -> Any:
    handle = serve_cluster(sandbox_server, CLUSTER, version)
    handle.sandbox.clock.set(FRIDAY)  # the cluster's now: a Friday morning
    return handle


def _forecast(handle: Any, path: str) -> dict[str, Any]:
    code, out, err = cli("plan", path, "--uri", handle.uri, "--format", "json")
    assert code == 0, err
    return dict(json.loads(out)["forecast"])


def _finish(forecast: dict[str, Any]) -> dt.datetime:
    return dt.datetime.fromisoformat(forecast["balancer"]["at"])


def test_the_balancer_forecast_waits_for_the_next_allowed_day(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = _served(sandbox_server)
    forecast = _forecast(handle, policy(tmp_path, "balancer:\n" + MONDAY + RANGES))
    assert forecast["now"].startswith("2026-11-27T10:00")  # Friday
    assert MONDAY_OPEN <= _finish(forecast) <= MONDAY_CLOSE, forecast["balancer"]
    assert forecast["assumed"]["balancer_window"] == {
        "activeWindowDOW": [{"day": "Monday", "start": "01:00", "stop": "05:00"}],
        "timezone": "UTC",
    }


def test_an_active_window_beside_them_is_ignored_as_mongodb_does(
    sandbox_server: Any, tmp_path: Path
) -> None:
    """The activeWindow is open right now; 8.3 ignores it once a DOW window is set."""
    handle = _served(sandbox_server)
    both = "balancer:\n  activeWindow: {start: '09:00', stop: '18:00'}\n" + MONDAY + RANGES
    path = policy(tmp_path, both)
    assert MONDAY_OPEN <= _finish(_forecast(handle, path)) <= MONDAY_CLOSE
    code, _, err = cli("validate", path)
    assert code == 0, err
    assert "policy.yaml:4:17: warning ZP504 activeWindow is set beside activeWindowDOW" in err
    # Below 8.3 the DOW key is not written (a warning says so) and activeWindow rules.
    older = _served(sandbox_server, "8.0")
    assert _finish(_forecast(older, path)) <= FRIDAY.replace(hour=18)


def test_status_and_metrics_show_the_day_windows_in_force(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = _served(sandbox_server)
    window = "balancer:\n  activeWindow: {start: '09:00', stop: '18:00'}\n" + MONDAY
    code, out, err = cli("apply", policy(tmp_path, window), "--uri", handle.uri, "--yes")
    assert code == 0, out + err
    code, text, err = cli("status", "--uri", handle.uri)
    assert code == 0, err
    assert (
        "day-of-week windows Monday 01:00-05:00 (config server local time; "
        "activeWindow 09:00-18:00 ignored)" in text
    ), text
    code, out, err = cli("status", "--uri", handle.uri, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["balancer"]["activeWindowDOW"] == [
        {"day": "Monday", "start": "01:00", "stop": "05:00"}
    ]
    code, html, err = cli("status", "--uri", handle.uri, "--format", "html")
    assert code == 0, err
    assert "day-of-week windows Monday 01:00-05:00; activeWindow 09:00-18:00 ignored" in html
    assert _in_window(handle) == 0  # Friday 10:00: inside activeWindow, outside Monday's
    handle.sandbox.clock.set(MONDAY_OPEN + dt.timedelta(hours=1))
    assert _in_window(handle) == 1


def _in_window(handle: Any) -> int:
    code, out, err = cli("status", "--uri", handle.uri, "--format", "openmetrics")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("zonectl_balancer_in_window{"))
    return int(line.rsplit(" ", 1)[1])


def test_a_repeated_entry_is_a_warning_because_mongodb_accepts_it(
    sandbox_server: Any, tmp_path: Path
) -> None:
    """balancer_configuration.cpp checks each entry on its own: a copy changes nothing, the
    8.3 validator only asks for an array. validate warns; apply writes it as written."""
    twice = MONDAY + '    - {day: Monday, start: "1:00", stop: "05:00"}\n'
    path = policy(tmp_path, "balancer:\n" + twice)
    code, _, err = cli("validate", path)
    assert code == 0, err
    assert (
        "policy.yaml:6:7: warning ZP505 activeWindowDOW[1] repeats activeWindowDOW[0] "
        "(Monday 1:00-05:00)" in err
    ), err
    handle = _served(sandbox_server)
    assert cli("apply", path, "--uri", handle.uri, "--yes")[0] == 0
    stored = handle.client.config.settings.find_one({"_id": "balancer"})["activeWindowDOW"]
    assert len(stored) == 2
    code, out, err = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err


def test_an_overnight_entry_wraps_inside_its_own_day() -> None:
    """`{Monday 22:00-06:00}` covers Monday 00:00-06:00 and 22:00-24:00, not Tuesday
    morning (§1.4, the BalancingWindowDOWOvernightWindow unit test)."""
    from zonectl.forecast.balancer_day_windows import DayWindows

    w = DayWindows.parse([{"day": "Monday", "start": "22:00", "stop": "06:00"}], dt.UTC)
    sunday_late = dt.datetime(2026, 11, 29, 23, 0, tzinfo=dt.UTC)
    assert w.next_open(sunday_late) == dt.datetime(2026, 11, 30, 0, 0, tzinfo=dt.UTC)
    tuesday_early = dt.datetime(2026, 12, 1, 2, 0, tzinfo=dt.UTC)
    assert not w.contains(tuesday_early)
    assert w.next_open(tuesday_early) == dt.datetime(2026, 12, 7, 0, 0, tzinfo=dt.UTC)
    assert w.closes_after(sunday_late.replace(day=30, hour=5)) == MONDAY_CLOSE.replace(
        hour=6, minute=1
    )
