"""The simulated week of issue 6 §3: one 10x shard, ten ordinary ones, a date-keyed and an
ObjectId-keyed collection growing at the top, `zonectl rotate --at` after each midnight
with balancer rounds in between, the 4th day's run skipped. The week runs once per module
(a few seconds); each test checks one behaviour on its rows."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from bson import ObjectId
from rotate_kit import HOT, Firehose, seeded, tap
from week import NAMESPACES, START, Day, simulate

SKIPPED = 4  # no rotate after the 4th day: the 5th run has to catch up two days
PER_DAY = 8  # chunks a day of inserts adds to each collection (one every 3 hours)


@pytest.fixture(scope="module")
def week(module_sandbox_server: Callable[..., Any]) -> list[Day]:
    sb = seeded()
    handle = module_sandbox_server(sandbox=sb, client_options={"tz_aware": True})
    fh = Firehose(sb, handle.uri, handle.client)
    tap(sb, fh.sent)
    return simulate(fh, days=7, skip={SKIPPED})


def _midnight(n: int) -> dt.datetime:
    return START + dt.timedelta(days=n)


def _as_instant(value: object) -> dt.datetime:
    if isinstance(value, ObjectId):
        return value.generation_time
    assert isinstance(value, dt.datetime)
    return value


def test_each_run_moves_the_boundary_to_the_last_midnight(week: list[Day]) -> None:
    for n, row in enumerate(week, 1):
        expected = _midnight(n - 1) if n == SKIPPED else _midnight(n)
        for ns in NAMESPACES:
            assert _as_instant(row.boundary[ns]) == expected, (n, ns)


def test_new_chunks_land_on_the_hot_shard_and_stay_there_while_in_the_window(
    week: list[Day],
) -> None:
    for n, row in enumerate(week, 1):
        for ns in NAMESPACES:
            assert row.before[ns].new_off_hot == 0, (n, ns)
            assert row.after[ns].new_off_hot == 0, (n, ns)
            # The top chunk [boundary, MaxKey), plus a skipped day's chunks.
            assert row.after[ns].new_on_hot == (1 + PER_DAY if n == SKIPPED else 1), (n, ns)


def test_chunks_older_than_the_boundary_leave_the_hot_shard_after_balancing(
    week: list[Day],
) -> None:
    for n, row in enumerate(week, 1):
        for ns in NAMESPACES:
            moved_out = 0 if n == SKIPPED else 2 * PER_DAY if n == SKIPPED + 1 else PER_DAY
            # Right after rotate they are still on the hot shard, where inserts put them.
            assert row.before[ns].old_on_hot == moved_out, (n, ns)
            assert row.after[ns].old_on_hot == 0, f"day {n} {ns}: old chunks stayed on {HOT}"
            assert row.after[ns].old_off_hot == row.before[ns].old_off_hot + moved_out


def test_a_skipped_day_is_caught_up_by_the_next_run_in_one_swap(week: list[Day]) -> None:
    skipped, caught_up = week[SKIPPED - 1], week[SKIPPED]
    assert skipped.result is None and skipped.ops == 0
    assert caught_up.result is not None and caught_up.result.code == 0
    assert (
        'app.events: window ISODate("2026-03-04T00:00:00.000Z") -> '
        'ISODate("2026-03-06T00:00:00.000Z")' in caught_up.result.out
    )
    assert caught_up.ops == 8  # two removals and two additions per collection


def test_running_rotate_twice_changes_nothing_and_sends_no_write(week: list[Day]) -> None:
    for n, row in enumerate(week, 1):
        if n == SKIPPED:
            continue
        assert row.result is not None and row.result.code == 0, (n, row.result)
        assert row.ops == 8
        assert row.rerun_writes == [], n
