"""`zonectl plan` with a shard the policy removes, through the CLI against the sandbox: what
the removal moves (chunks and bytes per collection, jumbo chunks, unsharded data, database
primaries), what blocks it, and that planning changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shards_kit import AT, CLUSTER, POLICY, metadata, zonectl

from zonectl.plan.serialize import load_plan
from zonectl.prbot.body import plan_alerts


def _policy(tmp_path: Path, text: str = POLICY) -> str:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    return str(path)


def _plan(policy: str, uri: str, *more: str) -> tuple[int, str, str]:
    return zonectl("plan", policy, "--uri", uri, "--at", AT, *more)


def test_a_removal_on_7_0_shows_what_it_moves_and_what_blocks_it_and_changes_nothing(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    before = metadata(sb.client)
    code, out, err = _plan(_policy(tmp_path), sb.uri, "--detailed-exitcode")
    assert code == 4, err
    lines = out.splitlines()
    drain = next(i for i, line in enumerate(lines) if "drain shard s1" in line)
    assert lines[drain] == (
        "  - drain shard s1: 343 chunks, ~8.0 MiB, 1 jumbo chunk, 1 database primary to move "
        "(removeShard)"
    )
    assert lines[drain + 1 : drain + 8] == [
        "      app.users: 2 chunks, 8.0 MiB",
        "      config.system.sessions: 341 chunks, 0 B",
        '      jumbo chunk app.users [{ country: "FR" }, { country: "US" }): 4.0 MiB',
        "      primary of (movePrimary): app",
        "      blocker (jumbo): 1 jumbo chunk on s1 the balancer skips while draining: "
        'app.users [{ country: "FR" }, { country: "US" }) (4.0 MiB)',
        "        fix: `zonectl apply --migrate --force-jumbo`, split the chunk, or reshard the "
        "collection",
        "",
    ]
    # Before 8.0 the unsharded collections move with their database's primary.
    assert "  ~ movePrimary app from s1 to s0" in lines
    assert lines.index("  ~ movePrimary app from s1 to s0") < drain
    assert "removeShardFromZone" not in out and "s1 leaves" not in out  # its zones go with it
    # The movePrimary moves a database's primary (its unsharded data), not a collection.
    assert "0 shards to re-zone, 1 shard to drain and remove, 1 database primary to move;" in out
    assert "collection to move" not in out
    assert metadata(sb.client) == before


def test_the_json_plan_carries_the_drain_and_its_blockers_and_a_saved_plan_round_trips(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    saved = tmp_path / "plan.json"
    code, out, err = _plan(_policy(tmp_path), sb.uri, "--format", "json", "--save-plan", str(saved))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["summary"]["shards_to_remove"] == 1
    assert doc["summary"]["primaries_to_move"] == 1 and "collections_to_move" not in doc["summary"]
    op = next(o for o in doc["ops"] if o["kind"] == "remove_shard")
    assert op["destructive"] is True
    assert op["command"] == {"removeShard": "s1"}
    args = op["args"]
    assert (args["shard"], args["step"], args["command_name"]) == ("s1", "start", "removeShard")
    users = next(c for c in args["drain"]["collections"] if c["namespace"] == "app.users")
    assert users == {
        "namespace": "app.users",
        "chunks": 2,
        "bytes": 8388608 - 8608,  # ownedSizeBytes: avgObjSize (floored) x documents
        "jumbo": [
            {
                "namespace": "app.users",
                "min": {"country": "FR"},
                "max": {"country": "US"},
                "bytes": 4194304,
            }
        ],
    }
    assert args["drain"]["databases"] == ["app"] and args["drain"]["draining"] is False
    assert [b["code"] for b in args["blockers"]] == ["jumbo"]
    assert args["blockers"][0]["refuses"] is False and "--force-jumbo" in args["blockers"][0]["fix"]
    loaded = load_plan(saved.read_text())
    assert [o.kind for o in loaded.ops] == [o["kind"] for o in doc["ops"]]
    assert loaded.plan_id == doc["plan_id"]


def test_the_pull_request_view_calls_the_removal_out_as_destructive(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    code, out, _ = _plan(_policy(tmp_path), sb.uri, "--format", "markdown")
    assert code == 0
    alerts = "\n".join(plan_alerts(out))
    assert "destructive change(s)" in alerts
    assert "shard `s1` is drained and removed from the cluster" in alerts
    assert "| shards to drain and remove | 1 |" in out
    assert "| database primaries to move (movePrimary) | 1 |" in out
    assert "collections to move" not in out


def test_the_balancer_off_and_a_closed_window_are_named_with_the_way_out(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    policy = _policy(tmp_path)
    sb.client.admin.command({"balancerStop": 1})
    _, out, _ = _plan(policy, sb.uri)
    assert (
        "blocker (balancer-off): the balancer is off (stopped): the 343 chunks left on s1 do "
        "not move"
    ) in out
    assert (
        "fix: turn the balancer on (`balancer: {enabled: true}` in the policy, or "
        "sh.startBalancer()), or move them with `zonectl apply --migrate`"
    ) in out
    sb.client.admin.command({"balancerStart": 1})
    sb.client.config.settings.update_one(
        {"_id": "balancer"}, {"$set": {"activeWindow": {"start": "22:00", "stop": "06:00"}}}
    )
    _, out, _ = _plan(policy, sb.uri)
    assert "balancer-off" not in out
    assert (
        "blocker (outside-window): the balancer's window 22:00-06:00 is closed at Friday 10:00 "
        "(UTC): the 343 chunks left on s1 wait for it to open"
    ) in out
    _, out, _ = zonectl("plan", policy, "--uri", sb.uri, "--at", "2026-11-20T23:00:00+00:00")
    assert "outside-window" not in out


def test_a_zone_only_the_removed_shard_keeps_refuses_the_removal(
    served: Any, tmp_path: Path
) -> None:
    """Zone us (ranges of app.users, which the policy does not manage) is on s2 alone."""
    sb = served("7.0")
    text = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: [eu]\n  s1: [eu]\n"
    text += "  s2: {state: removed}\n"
    code, out, err = _plan(_policy(tmp_path, text), sb.uri, "--detailed-exitcode")
    assert code == 4, err
    assert (
        "BLOCKED (zone-in-use): shard s2 would still be the only shard of zone us, which has "
        "ranges (unmanaged namespace app.users): the server refuses to remove it "
        "(ZoneStillInUse)"
    ) in out
    assert "fix: give zone us to another shard under `shards`, or remove its ranges" in out
    assert "no-recipient" not in out


def test_a_removed_shard_the_cluster_does_not_have_plans_nothing(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    text = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: [eu]\n  s1: [eu]\n"
    text += "  s2: [us]\n  s9: {state: removed}\n"
    code, out, err = _plan(_policy(tmp_path, text), sb.uri, "--detailed-exitcode")
    assert code == 0, out + err
    assert "No changes: the cluster matches the policy." in out
    # No removal of s9 on record: a misspelt name would otherwise pass in silence.
    assert "shard s9 (state: removed) is not in the cluster and config.changelog records " in err
    assert "a misspelt name? The cluster has s0, s1, s2." in err


def test_a_shard_removed_earlier_is_a_note_and_nothing_to_do(served: Any, tmp_path: Path) -> None:
    # The kit's cluster without its jumbo chunk and with no primary on s1: it can drain.
    easy = CLUSTER.replace("    jumbo: [2]\n", "").replace("primary: s1", "primary: s0")
    sb = served("7.0", easy)
    state = ""
    for _ in range(2000):  # started, then ongoing until the balancer has drained it
        state = sb.client.admin.command("removeShard", "s1")["state"]
        if state == "completed":
            break
        sb.sandbox.balancer.run_round()
        sb.sandbox.balancer.poll()
    assert state == "completed"
    text = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: [eu]\n  s2: [us]\n"
    text += "  s1: {state: removed}\n"
    code, out, err = _plan(_policy(tmp_path, text), sb.uri, "--detailed-exitcode")
    assert code == 0, out + err
    assert "No changes: the cluster matches the policy." in out
    assert "shard s1 was removed from the cluster at " in out + err
    assert "misspelt" not in err


def test_removing_every_shard_is_refused_and_nothing_changes(served: Any, tmp_path: Path) -> None:
    sb = served("7.0")
    before = metadata(sb.client)
    text = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: {state: removed}\n"
    text += "  s1: {state: removed}\n  s2: {state: removed}\n"
    code, out, err = _plan(_policy(tmp_path, text), sb.uri)
    assert code == 3
    assert "ZP307" in out + err and "keep one shard `state: active`" in out + err
    assert metadata(sb.client) == before


def test_a_restricted_plan_leaves_shards_out(served: Any, tmp_path: Path) -> None:
    sb = served("7.0")
    text = POLICY + "collections:\n  app.users: {balancing: false}\n"
    code, out, err = _plan(_policy(tmp_path, text), sb.uri, "-n", "app.users", "-f", "json")
    assert code == 0, err
    assert [o["kind"] for o in json.loads(out)["ops"]] == ["set_collection_balancing"]


def test_day_of_week_windows_in_force_on_8_3_block_the_drain_when_closed(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.3")
    policy = _policy(tmp_path)
    days = [{"day": "Friday", "start": "22:00", "stop": "23:30"}]
    sb.client.config.settings.update_one(
        {"_id": "balancer"}, {"$set": {"activeWindowDOW": days}}, upsert=True
    )
    _, out, _ = _plan(policy, sb.uri)
    assert (
        "blocker (outside-window): the balancer's day-of-week windows (Friday 22:00-23:30) are "
        "closed on Friday 10:00 (UTC)"
    ) in out
    _, out, _ = zonectl("plan", policy, "--uri", sb.uri, "--at", "2026-11-20T22:30:00+00:00")
    assert "outside-window" not in out
