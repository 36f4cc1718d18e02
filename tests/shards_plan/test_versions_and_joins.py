"""`zonectl plan` for shards joining and leaving across versions, through the CLI against
the sandbox: 8.0 moves a removed shard's unsharded collections, 8.3 names its own commands
and stops a drain the policy takes back (a note before 8.3), and a shard with `host:` is
added before the zones it is given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pymongo.errors import OperationFailure
from shards_kit import AT, POLICY, zonectl

from zonectl.prbot.body import Report, build_comment, plan_alerts

HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n"

# s1 holds nothing at all (every chunk, sessions included, is on s0): once draining, its
# removal can be committed.
EMPTY_S1 = """
shards:
  - {name: s0, zones: [eu]}
  - {name: s1}
databases:
  - {name: app, primary: s0}
collections:
  - {ns: config.system.sessions, key: {_id: 1}, distribution: all-on-one, shard: s0}
  - {ns: app.users, key: {country: 1}, distribution: all-on-one, shard: s0}
"""


def _policy(tmp_path: Path, text: str = POLICY) -> str:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    return str(path)


def _ops(policy: str, uri: str) -> list[dict[str, Any]]:
    code, out, err = zonectl("plan", policy, "--uri", uri, "--at", AT, "--format", "json")
    assert code == 0, err
    ops: list[dict[str, Any]] = json.loads(out)["ops"]
    return ops


def _start_draining(client: Any, shard: str) -> None:
    """startShardDraining where the server has it (8.3), else removeShard's first call."""
    try:
        client.admin.command({"startShardDraining": shard})
    except OperationFailure as exc:
        if exc.code != 59:  # CommandNotFound
            raise
        client.admin.command({"removeShard": shard})


def test_on_8_0_a_removed_shards_unsharded_collections_move_before_its_primary(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    ops = _ops(_policy(tmp_path), sb.uri)
    moves = [(o["kind"], o["args"].get("ns") or o["args"].get("db")) for o in ops]
    assert moves == [
        ("move_collection", "app.settings"),
        ("move_primary", "app"),
        ("remove_shard", None),
    ]
    assert ops[0]["args"]["from_shard"] == "s1" and ops[0]["args"]["to_shard"] == "s0"
    assert ops[1]["args"]["to_shard"] == "s2"  # s0 took a move: the next goes elsewhere
    _, out, _ = zonectl("plan", _policy(tmp_path), "--uri", sb.uri, "--at", AT)
    assert "moveCollection from s1 to s0 (shard s1 is removed, ~1.0 MiB to copy; 5 min" in out
    assert "unsharded (moveCollection): app.settings" in out


def test_on_8_3_each_step_names_its_own_command(served: Any, tmp_path: Path) -> None:
    sb = served("8.3")
    policy = _policy(tmp_path)
    [removal] = [o for o in _ops(policy, sb.uri) if o["kind"] == "remove_shard"]
    assert (removal["args"]["step"], removal["command"]) == (
        "start",
        {"startShardDraining": "s1"},
    )
    _start_draining(sb.client, "s1")
    [removal] = [o for o in _ops(policy, sb.uri) if o["kind"] == "remove_shard"]
    assert (removal["args"]["step"], removal["command"]) == (
        "continue",
        {"shardDrainingStatus": "s1"},
    )
    drain = removal["args"]["drain"]
    assert drain["draining"] is True
    # shardDrainingStatus's own estimate, and the unsharded collection it also lists.
    status = sb.client.admin.command({"shardDrainingStatus": "s1"})
    assert drain["estimated_remaining_bytes"] == status["remaining"]["estimatedRemainingBytes"]
    assert drain["unsharded"] == status["collectionsToMove"] == ["app.settings"]


def test_an_empty_draining_shard_is_committed_with_the_servers_command(
    served: Any, tmp_path: Path
) -> None:
    text = HEAD + "  s0: [eu]\n  s1: {state: removed}\n"
    for version, command in (("7.0", "removeShard"), ("8.3", "commitShardRemoval")):
        sb = served(version, EMPTY_S1)
        _start_draining(sb.client, "s1")
        code, out, err = zonectl("plan", _policy(tmp_path, text), "--uri", sb.uri, "--at", AT)
        assert code == 0, err
        assert f"  - remove shard s1 (empty; {command})" in out
        [removal] = _ops(_policy(tmp_path, text), sb.uri)
        assert removal["command"] == {command: "s1"} and removal["args"]["step"] == "commit"


def test_a_drain_the_policy_takes_back_is_stopped_on_8_3_and_explained_before(
    served: Any, tmp_path: Path
) -> None:
    """s0 is draining and the policy keeps it (eu) while it removes s1, eu's other shard."""
    sb = served("8.3")
    _start_draining(sb.client, "s0")
    ops = _ops(_policy(tmp_path), sb.uri)
    assert ops[0]["kind"] == "stop_shard_draining" and ops[0]["command"] == {
        "stopShardDraining": "s0"
    }
    [removal] = [o for o in ops if o["kind"] == "remove_shard"]
    assert "no-recipient" not in [b["code"] for b in removal["args"]["blockers"]]

    sb = served("7.0")
    sb.client.admin.command({"removeShard": "s0"})
    code, out, err = zonectl("plan", _policy(tmp_path), "--uri", sb.uri, "--at", AT)
    assert code == 0, err
    assert "stop draining" not in out
    assert (
        "shard s0 is draining (config.shards) and the policy keeps it active: MongoDB 7.0.16 has "
        "no command that cancels a drain (stopShardDraining is new in 8.3)"
    ) in out
    assert (
        "blocker (no-recipient): zone eu (ranges of app.users) has no shard that can receive "
        "s1's chunks in it: its other shard (s0) is draining"
    ) in out


def test_a_shard_with_a_host_is_added_before_its_zones(served: Any, tmp_path: Path) -> None:
    sb = served("7.0")
    text = POLICY.replace("  s2: [us]\n", "  s2: [us]\n") + (
        '  s3: {zones: [eu, us], host: "rs3/db3a:27018,db3b:27018"}\n'
    )
    ops = _ops(_policy(tmp_path, text), sb.uri)
    kinds = [(o["kind"], o["args"].get("shard"), o["args"].get("zone")) for o in ops]
    assert kinds[:3] == [
        ("add_shard", "s3", None),
        ("add_shard_to_zone", "s3", "eu"),
        ("add_shard_to_zone", "s3", "us"),
    ]
    assert ops[0]["command"] == {"addShard": "rs3/db3a:27018,db3b:27018", "name": "s3"}
    assert kinds[-1] == ("remove_shard", "s1", None)
    _, out, _ = zonectl("plan", _policy(tmp_path, text), "--uri", sb.uri, "--at", AT)
    assert "1 shard to add to the cluster, 1 shard to drain and remove" in out


def test_the_pull_request_view_calls_a_shard_joining_no_destructive_change(
    served: Any, tmp_path: Path
) -> None:
    """Adding a shard destroys nothing: the markdown plan and the PR bot's comment list it
    with the changes, in no destructive-change callout; a removal next to it is the one."""
    sb = served("7.0")
    host = '  s3: {zones: [eu], host: "rs3/db3a:27018"}\n'
    joins = HEAD + "  s0: [eu]\n  s1: [eu]\n  s2: [us]\n" + host
    code, markdown, err = zonectl(
        "plan", _policy(tmp_path, joins), "--uri", sb.uri, "--at", AT, "--format", "markdown"
    )
    assert code == 0, err
    assert "| shards to add to the cluster | 1 |" in markdown
    assert "+ add shard s3 at rs3/db3a:27018" in markdown
    comment = build_comment(Report(0, "", markdown, 4))
    for text in (markdown, comment):
        assert plan_alerts(text) == [] and "destructive" not in text

    both = POLICY + host
    code, markdown, err = zonectl(
        "plan", _policy(tmp_path, both), "--uri", sb.uri, "--at", AT, "--format", "markdown"
    )
    assert code == 0, err
    [alert] = plan_alerts(markdown)
    assert "> **1 destructive change(s)**" in alert
    assert "shard `s1` is drained and removed" in alert and "s3" not in alert


def test_a_host_the_cluster_has_under_that_name_differently_is_a_warning_not_an_op(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    live = sb.client.config.shards.find_one({"_id": "s2"})["host"]
    text = HEAD + '  s0: [eu]\n  s1: [eu]\n  s2: {zones: [us], host: "other/h9:27018"}\n'
    code, out, err = zonectl(
        "plan", _policy(tmp_path, text), "--uri", sb.uri, "--at", AT, "--detailed-exitcode"
    )
    assert code == 0, out + err
    assert (
        f"shard s2: the policy's host other/h9:27018 is not the cluster's ({live}); zonectl "
        "never re-adds a shard: fix `host:` or the shard's name"
    ) in out + err


def test_a_pin_moves_an_unsharded_collection_off_a_removed_shard_once(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    text = POLICY + "collections:\n  app.settings: {pin: us}\n"
    ops = _ops(_policy(tmp_path, text), sb.uri)
    moves = [o["args"] for o in ops if o["kind"] == "move_collection"]
    assert moves == [{"ns": "app.settings", "to_shard": "s2", "from_shard": "s1", "zone": "us"}]
