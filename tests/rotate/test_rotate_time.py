"""Time goes forward: rotate never moves a window boundary back without --allow-backwards
(after a `--at` in the future, a replayed older instant, a clock that jumped), and does not
run when this host's clock and the cluster's differ by more than --max-clock-skew. Each
refusal names both clocks, exits 5 and sends nothing."""

from __future__ import annotations

import datetime as dt

import pytest
from rotate_kit import POLICY, Firehose, midnight, zonectl

FUTURE = dt.datetime(2030, 1, 2, tzinfo=dt.UTC)


def _iso(instant: dt.datetime) -> str:
    return f"{instant:%Y-%m-%dT%H:%M:%SZ}"


def test_after_a_future_at_a_plain_run_refuses_to_move_the_window_back(
    firehose: Firehose,
) -> None:
    ahead = firehose.rotate("--at", "2030-01-02T00:05:00Z", "--yes")
    assert ahead.code == 0, ahead.err
    assert (
        "--at 2030-01-02T00:05:00Z is " in ahead.err and "ahead of the cluster's clock" in ahead.err
    )
    assert firehose.hot_min() == FUTURE
    firehose.sent.clear()
    before = dt.datetime.now(dt.UTC)
    r = firehose.rotate("--yes")
    assert r.code == 5, r.err
    assert "refusing to move 2 firehose window(s) backwards; nothing was sent" in r.err
    assert 'app.events: live boundary ISODate("2030-01-02T00:00:00.000Z") is later than' in r.err
    assert f'ISODate("{midnight(before):%Y-%m-%d}T00:00:00.000Z")' in r.err
    assert "(this host's clock)" in r.err
    assert (
        "this host's clock " in r.err and "the cluster's " in r.err and "hello.localTime" in r.err
    )
    assert "--allow-backwards" in r.err
    assert firehose.writes() == []  # not even the lease
    assert firehose.hot_min() == FUTURE
    # plan (and apply) show the same move back as a warning.
    plan = zonectl("plan", str(POLICY), "--uri", firehose.uri)
    assert plan.code == 0, plan.err
    assert (
        'app.events: the window boundary moves back from ISODate("2030-01-02T00:00:00.000Z")'
        in plan.err
    )
    assert "`zonectl rotate` refuses this without --allow-backwards" in plan.err
    back = firehose.rotate("--yes", "--allow-backwards")
    assert back.code == 0, back.err
    assert "--allow-backwards: moving 2 firehose window(s) back" in back.err
    assert firehose.hot_min() in {midnight(before), midnight(dt.datetime.now(dt.UTC))}


def test_an_older_at_is_refused_as_backwards_too(firehose: Firehose) -> None:
    assert firehose.rotate("--at", "2026-03-03T00:05:00Z", "--yes").code == 0
    firehose.sent.clear()
    r = firehose.rotate("--at", "2026-03-02T00:05:00Z", "--yes")
    assert r.code == 5
    assert "the boundary at 2026-03-02T00:05:00Z (--at)" in r.err
    assert firehose.writes() == []


def test_a_host_clock_behind_the_cluster_is_refused_and_cannot_move_windows_back(
    firehose: Firehose,
) -> None:
    # The cluster's clock is right; this host's jumped back three days (a restored VM).
    cluster_now = dt.datetime.now(dt.UTC) + dt.timedelta(days=3, seconds=30)
    firehose.sandbox.clock.set(cluster_now)
    assert firehose.rotate("--at", _iso(cluster_now), "--yes").code == 0  # the last good run
    firehose.sent.clear()
    r = firehose.rotate("--yes")
    assert r.code == 5
    assert "refusing to rotate: the clocks differ by 3d 00h00m," in r.err
    assert "more than --max-clock-skew 5m00s" in r.err
    assert f"the cluster's {_iso(cluster_now)} (hello.localTime, 3d 00h00m" in r.err
    assert "ahead of this host" in r.err
    assert firehose.writes() == []
    # Even with the bound lifted, the host's older boundary is not sent.
    r = firehose.rotate("--yes", "--max-clock-skew", "100h")
    assert r.code == 5
    assert "refusing to move 2 firehose window(s) backwards" in r.err
    assert firehose.writes() == []
    assert firehose.hot_min() == midnight(cluster_now)


def test_a_cluster_clock_behind_this_host_is_named_and_refused(firehose: Firehose) -> None:
    firehose.sandbox.clock.set(dt.datetime.now(dt.UTC) - dt.timedelta(minutes=20))
    r = firehose.rotate("--yes")
    assert r.code == 5
    assert "refusing to rotate: the clocks differ by 20m" in r.err
    assert "behind this host" in r.err
    assert firehose.writes() == []


@pytest.mark.parametrize(
    ("skew_min", "flag", "code"), [(2, (), 0), (10, (), 5), (10, ("--max-clock-skew", "15m"), 0)]
)
def test_the_skew_bound_defaults_to_5m_and_is_a_flag(
    firehose: Firehose, skew_min: int, flag: tuple[str, ...], code: int
) -> None:
    firehose.sandbox.clock.set(dt.datetime.now(dt.UTC) + dt.timedelta(minutes=skew_min))
    r = firehose.rotate("--yes", *flag)
    assert r.code == code, r.err
    if code == 0:  # the seeded 2026-03-01 window moves forward to today
        assert "app.events: window" in r.out
    else:
        assert firehose.writes() == []


def test_a_bad_skew_bound_is_a_usage_error(firehose: Firehose) -> None:
    r = firehose.rotate("--yes", "--max-clock-skew", "soon")
    assert r.code == 2
    assert "--max-clock-skew: 'soon' is not a duration" in r.err
    assert firehose.writes() == []


def test_a_refused_rotate_names_recover_when_a_dead_run_left_balancing_paused(
    firehose: Firehose,
) -> None:
    """A run killed mid-rotation leaves its journal open and balancing paused; the next
    cron run refused to go backwards named only clocks and --allow-backwards, every tick,
    though `zonectl recover` restores the pause."""
    from zonectl.mongo.journal import MongoJournal

    assert firehose.rotate("--at", "2030-01-02T00:05:00Z", "--yes").code == 0
    clean = firehose.rotate("--yes")
    assert clean.code == 5 and "zonectl recover" not in clean.err
    journal = MongoJournal(firehose.client, "zonectl")
    journal.open({"_id": "dead", "state": "open", "started": dt.datetime.now(dt.UTC), "ops": []})
    journal.event("dead", {"type": "pause", "scope": "collection", "ns": "app.events"})
    r = firehose.rotate("--yes")
    assert r.code == 5 and "refusing to move 2 firehose window(s) backwards" in r.err
    assert "balancing paused and its journal open: `zonectl recover` restores it" in r.err
    assert "--allow-backwards" in r.err
