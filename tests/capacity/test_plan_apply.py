"""The disk guard through the CLI against the sandbox: a change that would take the 20 GiB
shard s1 (14 GiB used) past 85 % is BLOCKED in plan (text and JSON name the shard and its
disk) and refused by apply with and without --migrate, leaving the cluster as it was; the
same change towards the large shard s2 plans and applies; the policy's limits; a user
without dbStats; the reshard and drain routes; a saved plan; a twin of the cluster."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from capacity_kit import AT, GIB, metadata, policy, zonectl

BLOCKED = (
    "  BLOCKED shard s1: volume 20.0 GiB, 14.0 GiB used (70.0%); after this plan 18.1 GiB "
    "(90.5%), past its limit 85% (17.0 GiB)"
)


def _plan(path: str, uri: str, *more: str) -> tuple[int, str, str]:
    return zonectl("plan", path, "--uri", uri, "--at", AT, *more)


def test_a_change_past_the_small_shards_limit_is_blocked_in_text_and_json(
    served: Any, tmp_path: Path
) -> None:
    sb = served()
    code, out, err = _plan(policy(tmp_path), sb.uri)
    assert code == 0, err
    lines = out.splitlines()
    at = lines.index("disk capacity")
    assert lines[at + 1] == BLOCKED
    assert lines[at + 2] == (
        "      route zone ranges (apply --migrate or the balancer): +4.1 GiB on disk "
        "(8.0 GiB of app.events)"
    )
    assert lines[at + 3].startswith("      ways out: another shard (give the zone a shard")
    for way in ("staging", "compact", "a larger volume"):
        assert way in lines[at + 3]
    code, out, err = _plan(policy(tmp_path), sb.uri, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    capacity = doc["capacity"]
    assert (capacity["database"], capacity["blocked"]) == ("app", ["s1"])
    s1 = next(s for s in capacity["shards"] if s["shard"] == "s1")
    assert (s1["total_bytes"], s1["used_bytes"], s1["used_ratio"]) == (20 * GIB, 14 * GIB, 0.7)
    assert (s1["limit"], s1["limit_bytes"], s1["blocked"]) == ("85%", int(20 * GIB * 0.85), True)
    # stored as the server reports app's data: half compressed, 64 bytes of index per
    # document (128 chunks x 12,500 documents); no free space to reuse on s1
    stored = 4 * GIB + 64 * 128 * 12_500
    added = s1["routes"][0]["added_bytes"]
    assert s1["projected_bytes"] == 14 * GIB + added
    # (the impact sizes documents at the floored avgObjSize, 5368 bytes: 0.01 % less)
    assert abs(added - stored) < stored / 1_000, (added, stored)
    assert [r["route"] for r in s1["routes"]] == ["ranges"]
    # what arrives is the plan's own estimate (the impact line's ~8.0 GiB)
    assert s1["routes"][0]["incoming_bytes"] == doc["summary"]["migrating_bytes"]
    s0 = next(s for s in capacity["shards"] if s["shard"] == "s0")
    assert s0["projected_bytes"] == s0["used_bytes"] and s0["routes"] == []  # the donor
    code, out, err = _plan(policy(tmp_path), sb.uri, "--format", "markdown")
    assert "### Disk capacity" in out and "BLOCKED shard s1" in out


@pytest.mark.parametrize("route", [[], ["--migrate"]], ids=["balancer", "migrate"])
def test_apply_refuses_a_blocked_plan_and_changes_nothing(
    served: Any, tmp_path: Path, route: list[str]
) -> None:
    sb = served()
    before = metadata(sb.client)
    code, out, err = zonectl("apply", policy(tmp_path), "--uri", sb.uri, "--yes", *route)
    assert code == 1, err
    assert out == ""
    assert "zonectl: error: the plan would take a shard past its disk limit; nothing was " in err
    assert BLOCKED.strip() in err
    assert metadata(sb.client) == before  # no zone, no range, no chunk moved


def test_the_same_change_towards_the_large_shard_plans_and_applies(
    served: Any, tmp_path: Path
) -> None:
    sb = served()
    code, out, err = _plan(policy(tmp_path, "big"), sb.uri)
    assert code == 0, err
    assert "disk capacity" not in out and "BLOCKED" not in out + err
    code, _, err = zonectl("apply", policy(tmp_path, "big"), "--uri", sb.uri, "--yes", "--migrate")
    assert code == 0, err
    shards = {c["shard"] for c in sb.client.config.chunks.find({"uuid": _uuid(sb)})}
    assert shards == {"s2"}


def _uuid(sb: Any) -> Any:
    return sb.client.config.collections.find_one({"_id": "app.events"})["uuid"]


def test_the_policy_limit_for_the_cluster_and_for_one_shard(served: Any, tmp_path: Path) -> None:
    sb = served()
    loose = policy(tmp_path, head="disk: {limit: '95%'}\n")
    code, out, err = _plan(loose, sb.uri)
    assert code == 0, err
    assert "BLOCKED" not in out  # 90.5 % of the volume, under 95 %
    tight = policy(tmp_path, head="disk: {limit: '95%'}\n")
    text = Path(tight).read_text()
    own = "  s1: {zones: [small], disk: {limit: '90%'}}\n  s0: {disk: {limit: '50%'}}\n"
    Path(tight).write_text(text.replace("  s1: [small]\n", own))
    code, out, err = _plan(tight, sb.uri)
    assert code == 0, err
    assert (
        "  BLOCKED shard s1: volume 20.0 GiB, 14.0 GiB used (70.0%); after this plan 18.1 GiB "
        "(90.5%), past its limit 90% (18.0 GiB)"
    ) in out.splitlines()
    assert "shard s0" not in out  # a donor past nothing: 50 % of 400 GiB is far off
