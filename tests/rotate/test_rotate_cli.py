"""`zonectl rotate` end to end against the firehose sandbox over TCP: what it sends, what it
prints, what it leaves alone, and its exit codes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from bson import ObjectId
from rotate_kit import HOT, POLICY, Firehose

DAY2 = dt.datetime(2026, 3, 2, tzinfo=dt.UTC)
AT = ("--at", "2026-03-02T00:05:00Z")


def _policy(tmp_path: Path, old: str, new: str) -> Path:
    text = POLICY.read_text()
    assert old in text, old
    path = tmp_path / "policy.yaml"
    path.write_text(text.replace(old, new, 1))
    return path


def test_rotate_moves_each_window_to_the_new_boundary_and_prints_what_moved(
    firehose: Firehose,
) -> None:
    r = firehose.rotate(*AT, "--yes")
    assert r.code == 0, r.err
    assert (
        'app.events: window ISODate("2026-03-01T00:00:00.000Z") -> '
        'ISODate("2026-03-02T00:00:00.000Z")' in r.out
    )
    assert "app.clicks: window ObjectId(" in r.out and "(2026-03-02T00:00:00Z)" in r.out
    assert r.out.count("  remove [") == 4 and r.out.count("  assign [") == 4
    events = firehose.tags("app.events")
    assert [zone for _, _, zone in events] == ["archive", "hot"]
    assert events[1][0]["ts"] == DAY2
    clicks = firehose.tags("app.clicks")
    assert clicks[1][0]["_id"] == ObjectId.from_datetime(DAY2)
    assert "rotated 2 window(s): 8/8 op(s)" in r.err


def test_each_swap_runs_inside_one_pause_of_its_collection_and_balancing_is_restored(
    firehose: Firehose,
) -> None:
    assert firehose.rotate(*AT, "--yes").code == 0
    seq = [
        (name, ns)
        for name, ns in firehose.sent
        if name == "updateZoneKeyRange" or (name == "update" and ns == "config.collections")
    ]
    for ns in ("app.clicks", "app.events"):
        # pause, remove old ranges, add new ones, restore: nothing of it outside the pause
        pause = ("update", "config.collections")
        assert seq[:6] == [pause, *([("updateZoneKeyRange", ns)] * 4), pause], seq
        seq = seq[6:]
    assert seq == []
    docs = firehose.client.config.collections.find({}, {"noBalance": 1})
    assert all(d.get("noBalance") is False for d in docs)
    assert firehose.client.zonectl.locks.count_documents({}) == 0


def test_a_second_run_before_the_next_tick_prints_nothing_and_sends_no_write(
    firehose: Firehose,
) -> None:
    assert firehose.rotate(*AT, "--yes").code == 0
    for at in ("2026-03-02T00:05:00Z", "2026-03-02T23:59:59Z"):
        firehose.sent.clear()
        r = firehose.rotate("--at", at, "--yes")
        assert (r.code, r.out, r.err) == (0, "", "")
        assert firehose.writes() == []


def test_without_yes_and_without_a_terminal_rotate_refuses_before_sending_anything(
    firehose: Firehose,
) -> None:
    r = firehose.rotate(*AT)
    assert r.code == 1
    assert "refusing to rotate without confirmation: stdin is not a terminal" in r.err
    assert "--yes" in r.err
    assert firehose.writes() == []


def test_nothing_due_exits_0_even_without_yes(firehose: Firehose) -> None:
    r = firehose.rotate("--at", "2026-03-01T12:00:00Z")
    assert (r.code, r.out) == (0, "")
    assert firehose.writes() == []


def test_migrate_moves_the_chunks_that_left_the_window_off_the_hot_shard_now(
    firehose: Firehose,
) -> None:
    from zonectl.sandbox.seed.growth import grow, instants

    start = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    grow(firehose.sandbox, "app.events", instants(start, DAY2, dt.timedelta(hours=6)))
    r = firehose.rotate(*AT, "--yes", "--migrate")
    assert r.code == 0, r.err
    assert "app.events: 0 splits, 4 chunks moved, 0 left" in r.out
    chunks = firehose.chunks("app.events")
    # Only the top chunk [day 2, MaxKey) is left on the hot shard, without balancer rounds.
    assert [c["shard"] for c in chunks if c["shard"] == HOT] == [HOT]
    assert chunks[-1]["shard"] == HOT and chunks[-1]["min"]["ts"] == DAY2


def test_other_drift_is_reported_on_stderr_and_left_alone(
    firehose: Firehose, tmp_path: Path
) -> None:
    drifted = _policy(tmp_path, "  shard-09: [archive]", "  shard-09: [archive, hot]")
    r = firehose.rotate(*AT, "--yes", policy=drifted)
    assert r.code == 0, r.err
    assert "1 change(s) outside firehose windows are left for `zonectl apply`" in r.err
    assert "add shard shard-09 to zone hot" in r.err
    assert "addShardToZone" not in firehose.writes()
    assert firehose.writes().count("updateZoneKeyRange") == 8


def test_a_live_range_rotate_would_collide_with_is_refused_before_any_write(
    firehose: Firehose,
) -> None:
    admin = firehose.client.admin
    admin.command("addShardToZone", "shard-05", zone="legacy")
    hot = {"ts": dt.datetime(2026, 3, 1, tzinfo=dt.UTC), "_id": {"$minKey": 1}}
    lo = {"ts": dt.datetime(2026, 3, 1, tzinfo=dt.UTC), "_id": _min_key()}
    top = {"ts": _max_key(), "_id": _max_key()}
    admin.command("updateZoneKeyRange", "app.events", min=lo, max=top, zone=None)
    legacy_hi = {"ts": dt.datetime(2026, 3, 3, tzinfo=dt.UTC), "_id": _min_key()}
    admin.command("updateZoneKeyRange", "app.events", min=lo, max=legacy_hi, zone="legacy")
    del hot
    firehose.sent.clear()
    r = firehose.rotate(*AT, "--yes")
    assert r.code == 1
    assert "overlaps the live range" in r.err and "zone legacy" in r.err
    assert firehose.writes() == []


def _min_key() -> object:
    from bson.min_key import MinKey

    return MinKey()


def _max_key() -> object:
    from bson.max_key import MaxKey

    return MaxKey()


def test_balancing_that_cannot_be_restored_exits_5_and_the_next_run_recovers_it(
    firehose: Firehose,
) -> None:
    admin = firehose.client.admin
    # Let the pause through, then fail every later noBalance write: the restore too.
    admin.command(
        "configureFailPoint",
        "failCommand",
        mode={"skip": 1},
        data={"failCommands": ["update"], "namespace": "config.collections", "errorCode": 96},
    )
    r = firehose.rotate(*AT, "--yes")
    assert r.code == 5, r.err
    assert "could not restore balancing of app.clicks" in r.err
    assert "noBalance: false" in r.err  # the exact mongosh command to run
    assert firehose.client.config.collections.find_one({"_id": "app.clicks"})["noBalance"]
    admin.command("configureFailPoint", "failCommand", mode="off")
    # The cluster is fixed; the next cron run restores balancing, then finishes the rotation.
    r = firehose.rotate("--at", "2026-03-02T00:15:00Z", "--yes")
    assert r.code == 0, r.err
    assert "restored noBalance: False on app.clicks" in r.err
    assert "app.events: window" in r.out and "app.clicks" not in r.out
    docs = firehose.client.config.collections.find({}, {"noBalance": 1})
    assert all(d.get("noBalance") is False for d in docs)
