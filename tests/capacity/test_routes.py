"""Each route of the disk guard through the CLI against the sandbox (resharding, a drain),
a user without dbStats, a saved plan, a twin of the cluster, and the round trips: one
dbStats (a second on admin for shards holding none of the database), none when the plan
moves nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from capacity_kit import AT, metadata, policy, zonectl

from zonectl.sandbox.auth.users import AuthConfig, User


def _plan(path: str, uri: str, *more: str) -> tuple[int, str, str]:
    return zonectl("plan", path, "--uri", uri, "--at", AT, *more)


def _blocked(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.strip().startswith("BLOCKED")]


def test_a_resharding_onto_the_small_shard_is_blocked_and_refused(
    served: Any, tmp_path: Path
) -> None:
    """The reshard route (one reshardCollection to the same key, 7.2+) copies the whole
    collection onto the zone's shard beside the original: 2 x 8 GiB stored on s1."""
    sb = served()
    path = policy(tmp_path)
    route = "{pin: small, migrate: reshard, reshard: true}"
    Path(path).write_text(Path(path).read_text().replace("{pin: small}", route))
    code, out, err = _plan(path, sb.uri, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert [o["kind"] for o in doc["ops"]][-1] == "reshard_collection"
    s1 = next(s for s in doc["capacity"]["shards"] if s["shard"] == "s1")
    assert [r["route"] for r in s1["routes"]] == ["reshard"] and s1["blocked"]
    before = metadata(sb.client)
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes")
    assert code == 1 and "past its disk limit" in err
    assert metadata(sb.client) == before


def test_a_drain_spread_over_the_shards_that_stay_is_blocked_on_the_small_one(
    served: Any, tmp_path: Path
) -> None:
    """s0 holds app.events (16 GiB, no zone ranges) and is removed: its chunks go to the
    shards that stay, half each; s1 cannot take 8 GiB, s2 can."""
    sb = served(256)
    path = tmp_path / "remove.yaml"
    path.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\n"
        "shards:\n  s0: {state: removed}\n  s1: [small]\n  s2: [big]\n"
    )
    code, out, err = _plan(str(path), sb.uri)
    assert code == 0, err
    assert _blocked(out) == [
        "BLOCKED shard s1: volume 20.0 GiB, 14.0 GiB used (70.0%); after this plan 18.1 GiB "
        "(90.5%), past its limit 85% (17.0 GiB)"
    ]
    assert "route drain of a removed shard: +4.1 GiB on disk (8.0 GiB of s0)" in out
    code, out, err = _plan(str(path), sb.uri, "--format", "json")
    capacity = json.loads(out)["capacity"]
    s2 = next(s for s in capacity["shards"] if s["shard"] == "s2")
    assert [r["route"] for r in s2["routes"]] == ["drain"] and not s2["blocked"]
    before = metadata(sb.client)
    code, _, err = zonectl("apply", str(path), "--uri", sb.uri, "--yes")
    assert code == 1 and "past its disk limit" in err
    assert metadata(sb.client) == before


def test_a_user_without_dbstats_gets_a_notice_and_a_plan_without_the_guard(
    served: Any, tmp_path: Path
) -> None:
    """A zone operator (clusterManager) may not run dbStats: the plan says the disk is not
    checked, and plans as before."""
    users = AuthConfig(
        users=[User("ops", "admin", "pw", ("clusterManager", ("readWrite", "zonectl")))],
        iterations_sha256=4096,
        iterations_sha1=4096,
    )
    sb = served(auth=users)
    uri = str(sb.uri).replace("mongodb://", "mongodb://ops:pw@")
    code, out, err = _plan(policy(tmp_path), uri, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert "capacity" not in doc
    notice = (
        "disk capacity not checked: dbStats on app is not allowed for this user "
        "(Unauthorized; the dbStats action, e.g. the clusterMonitor role); this plan is made "
        "without the disk guard"
    )
    assert notice in doc["warnings"]
    assert f"zonectl: warning: {notice}" in err.splitlines()
    code, _, err = zonectl("apply", policy(tmp_path), "--uri", uri, "--yes")
    assert code == 0, err  # without the guard apply runs, and says so first
    assert err.splitlines()[0] == f"zonectl: warning: {notice}"


def test_a_saved_blocked_plan_is_refused_by_apply(served: Any, tmp_path: Path) -> None:
    sb = served()
    saved = tmp_path / "plan.json"
    code, _, err = _plan(policy(tmp_path), sb.uri, "--save-plan", str(saved))
    assert code == 0, err
    assert json.loads(saved.read_text())["capacity"]["blocked"] == ["s1"]
    before = metadata(sb.client)
    code, _, err = zonectl("apply", "--plan", str(saved), "--uri", sb.uri, "--yes", "--migrate")
    assert code == 1 and "past its disk limit" in err
    assert metadata(sb.client) == before


def test_the_same_change_on_a_twin_of_the_cluster_is_blocked_too(
    served: Any, tmp_path: Path
) -> None:
    sb = served()
    twin = tmp_path / "prod.twin.yaml"
    code, _, err = zonectl("twin", "--uri", sb.uri, "-o", str(twin))
    assert code == 0, err
    code, out, err = _plan(policy(tmp_path), f"sandbox:{twin}")
    assert code == 0, err
    assert _blocked(out) == [
        "BLOCKED shard s1: volume 20.0 GiB, 14.0 GiB used (70.0%); after this plan 18.1 GiB "
        "(90.5%), past its limit 85% (17.0 GiB)"
    ]


def test_one_dbstats_when_the_plan_moves_data_and_none_when_it_moves_nothing(
    served: Any, tmp_path: Path
) -> None:
    sb = served()
    code, out, err = _plan(policy(tmp_path), sb.uri, "--format", "json")
    assert code == 0, err
    # app on s0 only: s1 and s2 answer zeros for it, and admin gives their volumes
    assert json.loads(out)["server_footprint"]["commands"]["dbStats"] == 2
    path = tmp_path / "zones.yaml"
    path.write_text("apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s1: [small]\n")
    code, out, err = _plan(str(path), sb.uri, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert "dbStats" not in doc["server_footprint"]["commands"] and "capacity" not in doc
