"""The CLI end to end against a live cluster ($ZONECTL_TEST_URI, else an in-process sandbox):
plan, apply, status, export, rotate, recover, doctor, and the fault cases that need no fail
point. Each test uses its own scratch databases and zones (live_kit.Scratch)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey
from live_kit import Scratch, ranges_policy

pytestmark = pytest.mark.live


def test_plan_apply_then_plan_is_empty(scratch: Scratch, tmp_path: Path) -> None:
    policy = ranges_policy(scratch, tmp_path)
    plan = scratch.zonectl("plan", str(policy), "-n", scratch.ns(), "--detailed-exitcode")
    assert plan.code == 4, plan.out + plan.err
    assert scratch.hot in plan.out and scratch.cold in plan.out
    applied = scratch.zonectl("apply", str(policy), "-n", scratch.ns(), "--yes")
    assert applied.code == 0, applied.err
    assert scratch.ranges() == [
        ({"n": 100}, {"n": MaxKey()}, scratch.cold),
        ({"n": MinKey()}, {"n": 100}, scratch.hot),
    ]
    assert scratch.zones_of(scratch.shards[0]) == [scratch.hot]
    assert scratch.zones_of(scratch.shards[1]) == [scratch.cold]
    assert scratch.no_balance() is False  # balancing restored after the range changes
    again = scratch.zonectl("plan", str(policy), "-n", scratch.ns(), "--detailed-exitcode")
    assert again.code == 0, again.out


def test_status_shows_the_applied_ranges(scratch: Scratch, tmp_path: Path) -> None:
    policy = ranges_policy(scratch, tmp_path)
    assert scratch.zonectl("apply", str(policy), "-n", scratch.ns(), "--yes").code == 0
    status = scratch.zonectl("status", "-n", scratch.ns(), "--format", "json")
    assert status.code == 0, status.err
    doc = json.loads(status.out)
    ns = next(n for n in doc["namespaces"] if n["namespace"] == scratch.ns())
    assert sorted(r["zone"] for r in ns["ranges"]) == sorted([scratch.hot, scratch.cold])
    assert doc["lease"] is None


def test_export_of_the_applied_state_plans_empty(scratch: Scratch, tmp_path: Path) -> None:
    policy = ranges_policy(scratch, tmp_path)
    assert scratch.zonectl("apply", str(policy), "-n", scratch.ns(), "--yes").code == 0
    exported = tmp_path / "exported.yaml"
    result = scratch.zonectl("export", "-n", scratch.ns(), "-o", str(exported))
    assert result.code == 0, result.err
    assert scratch.hot in exported.read_text()
    plan = scratch.zonectl("plan", str(exported), "-n", scratch.ns(), "--detailed-exitcode")
    assert plan.code == 0, plan.out + plan.err


def test_rotate_places_the_firehose_boundary_once(scratch: Scratch, tmp_path: Path) -> None:
    ns = scratch.shard("stream", {"ts": 1})
    policy = scratch.policy(
        tmp_path,
        f"  {ns}:\n"
        "    key: {ts: 1}\n"
        "    firehose: {field: ts, type: date, schedule: '0 0 1 1 *', timezone: UTC,\n"
        f"               keep: 1, hot: {scratch.hot}, cold: {scratch.cold}}}\n",
    )
    # The first apply creates the zones; rotate then owns the window.
    assert scratch.zonectl("apply", str(policy), "--yes").code == 0
    year = dt.datetime.now(dt.UTC).year
    boundary = dt.datetime(year, 1, 1, tzinfo=dt.UTC)
    assert scratch.ranges("stream") == [
        ({"ts": MinKey()}, {"ts": boundary}, scratch.cold),
        ({"ts": boundary}, {"ts": MaxKey()}, scratch.hot),
    ]
    # A year later the boundary moves: rotate --at places it, a second run is a no-op.
    later = f"{year + 1}-01-01T00:00:01Z"
    rotated = scratch.zonectl("rotate", str(policy), "--at", later, "--yes")
    assert rotated.code == 0, rotated.err
    moved = dt.datetime(year + 1, 1, 1, tzinfo=dt.UTC)
    assert [r[1] for r in scratch.ranges("stream") if r[2] == scratch.cold] == [{"ts": moved}]
    again = scratch.zonectl("rotate", str(policy), "--at", later, "--yes")
    assert again.code == 0, again.err
    assert [r[0] for r in scratch.ranges("stream") if r[2] == scratch.hot] == [{"ts": moved}]


def test_a_held_lease_refuses_apply_until_recover_breaks_it(
    scratch: Scratch, tmp_path: Path
) -> None:
    policy = ranges_policy(scratch, tmp_path)
    now = dt.datetime.now(dt.UTC)
    scratch.target.client[scratch.meta].locks.insert_one(
        {"_id": "apply", "owner": "cron@elsewhere", "host": "elsewhere", "pid": 1,
         "operation": "apply", "token": "x", "acquired": now,
         "expires": now + dt.timedelta(minutes=5)}
    )  # fmt: skip
    refused = scratch.zonectl("apply", str(policy), "-n", scratch.ns(), "--yes")
    assert refused.code == 1
    assert "lease held by cron@elsewhere" in refused.err
    assert scratch.ranges() == []  # nothing was sent
    assert scratch.zonectl("recover", "--break-lease").code == 0
    assert scratch.target.client[scratch.meta].locks.find_one({"_id": "apply"}) is None
    assert scratch.zonectl("apply", str(policy), "-n", scratch.ns(), "--yes").code == 0


def test_a_saved_plan_is_refused_once_the_cluster_changed(scratch: Scratch, tmp_path: Path) -> None:
    policy = ranges_policy(scratch, tmp_path)
    saved = tmp_path / "plan.json"
    assert (
        scratch.zonectl("plan", str(policy), "-n", scratch.ns(), "--save-plan", str(saved)).code
        == 0
    )
    client = scratch.target.client
    client.admin.command({"addShardToZone": scratch.shards[0], "zone": scratch.hot})
    client.admin.command(
        {"updateZoneKeyRange": scratch.ns(), "min": {"n": 500}, "max": {"n": 600},
         "zone": scratch.hot}
    )  # fmt: skip
    stale = scratch.zonectl("apply", "--plan", str(saved), "--yes")
    assert stale.code == 1
    assert "stale" in stale.err
    assert scratch.ranges() == [({"n": 500}, {"n": 600}, scratch.hot)]


def test_a_policy_naming_an_unknown_shard_changes_nothing(scratch: Scratch, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\n"
        f"shards:\n  {scratch.name}_no_such_shard: [{scratch.hot}]\n"
    )
    result = scratch.zonectl("apply", str(path), "--yes")
    assert result.code == 1
    assert f"{path}:4:" in result.err and "unknown shard" in result.err
    assert scratch.zones_of(scratch.shards[0]) == []


def test_an_invalid_policy_exits_3_before_connecting(scratch: Scratch, tmp_path: Path) -> None:
    path = tmp_path / "invalid.yaml"
    path.write_text("apiVersion: zonectl/v1\nkind: ZonePolicy\ncollections:\n  nodot: {}\n")
    result = scratch.zonectl("plan", str(path))
    assert result.code == 3
    assert f"{path}:4:" in result.err


def test_doctor_and_its_probe_pass(scratch: Scratch, tmp_path: Path) -> None:
    policy = ranges_policy(scratch, tmp_path)
    doctor = scratch.zonectl("doctor", str(policy), "--probe")
    assert doctor.code == 0, doctor.out + doctor.err
    assert "probe:cleanup" in doctor.out
    assert f"policy:{scratch.ns()}" in doctor.out
    leftovers = [
        n for n in scratch.target.client[scratch.meta].list_collection_names()
        if n.startswith("zonectl_probe_")
    ]  # fmt: skip
    assert leftovers == []


def test_recover_restores_what_a_killed_apply_left(scratch: Scratch) -> None:
    """What `kill -9` during an apply leaves: balancing paused by it and its journal open
    (written with zonectl's own journal class, as the apply would have)."""
    from zonectl.mongo.journal import MongoJournal

    client = scratch.target.client
    journal = MongoJournal(client, scratch.meta)
    journal.open({"_id": "killed-1", "plan_id": "p1", "owner": "cron@gone", "state": "open",
                  "started": dt.datetime.now(dt.UTC), "ops": []})  # fmt: skip
    journal.event("killed-1", {"type": "pause", "scope": "collection", "ns": scratch.ns(),
                               "prior": False})  # fmt: skip
    client.config.collections.update_one({"_id": scratch.ns()}, {"$set": {"noBalance": True}})
    status = json.loads(scratch.zonectl("status", "-n", scratch.ns(), "--format", "json").out)
    assert [j["applyId"] for j in status["unfinishedApplies"]] == ["killed-1"]
    recovered = scratch.zonectl("recover")
    assert recovered.code == 0, recovered.err
    assert f"restored noBalance: False on {scratch.ns()}" in recovered.err
    assert scratch.no_balance() is False
    assert journal.find_open() == []
