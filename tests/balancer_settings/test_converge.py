"""Every key of the settings table through the CLI against the sandbox over TCP: plan shows
each change, apply writes it exactly as MongoDB stores it, the second plan is empty, and
export writes a policy that plans empty (reference balancer-settings.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.balancer_settings.kit import cli, collection_doc, policy, serve, settings_doc

EVERY_KEY = """balancer:
  enabled: true
  chunkSizeMB: 64
  secondaryThrottle: {w: majority, wtimeout: 60000}
  waitForDelete: true
  attemptToBalanceJumboChunks: true
  autoMerger: false
  activeWindowDOW:
    - {day: Saturday, start: "01:00", stop: "23:00"}
collections:
  app.events:
    chunkSizeMB: 32
    autoMerger: false
    balancing: true
    defragment: true
"""


def _plan_json(path: str, uri: str) -> dict[str, Any]:
    code, out, err = cli("plan", path, "--uri", uri, "--format", "json")
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def test_every_key_plans_applies_and_converges_on_7_0(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve(sandbox_server, "7.0")
    path = policy(tmp_path, EVERY_KEY)
    plan = _plan_json(path, handle.uri)
    assert any("`balancer.activeWindowDOW` needs MongoDB 8.3+" in w for w in plan["warnings"])
    described = [o["description"] for o in plan["ops"]]
    assert described == [
        "set chunkSizeMB of app.events to 32 MB",
        "set autoMerger of app.events to off",
        "start defragment of app.events",
        "set balancer chunkSizeMB to 64 MB",
        "set balancer secondaryThrottle to write concern {w: majority, wtimeout: 60000}",
        "set balancer waitForDelete to on",
        "set balancer attemptToBalanceJumboChunks to on",
        "set balancer autoMerger to off",
    ]
    code, _, err = cli("apply", path, "--uri", handle.uri, "--yes")
    assert code == 0, err
    assert settings_doc(handle, "chunksize") == {"_id": "chunksize", "value": 64}
    balancer = settings_doc(handle, "balancer") or {}
    assert balancer["_secondaryThrottle"] == {"w": "majority", "wtimeout": 60000}
    assert balancer["_waitForDelete"] is True
    assert balancer["attemptToBalanceJumboChunks"] is True
    assert (settings_doc(handle, "automerge") or {})["enabled"] is False
    events = collection_doc(handle, "app.events")
    assert events["maxChunkSizeBytes"] == 32 * 1024 * 1024
    assert events["enableAutoMerge"] is False
    assert "activeWindowDOW" not in balancer
    handle.sandbox.balancer.run_until_stable(200)  # the balancer runs the defragmentation
    code, out, err = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err


def test_export_writes_the_settings_back_and_its_plan_is_empty(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve(sandbox_server, "7.0")
    assert cli("apply", policy(tmp_path, EVERY_KEY), "--uri", handle.uri, "--yes")[0] == 0
    code, exported, err = cli("export", "--uri", handle.uri)
    assert code == 0, err
    for line in (
        "chunkSizeMB: 64",
        'secondaryThrottle: {w: "majority", wtimeout: 60000}',
        "waitForDelete: true",
        "attemptToBalanceJumboChunks: true",
        "autoMerger: false",
        "chunkSizeMB: 32",
    ):
        assert line in exported
    path = tmp_path / "exported.yaml"
    path.write_text(exported, encoding="utf-8")
    code, out, err = cli("plan", str(path), "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err


def test_a_setting_set_by_hand_that_the_policy_does_not_name_is_left_alone(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve(sandbox_server, "7.0")
    config = handle.client.config
    config.settings.update_one({"_id": "balancer"}, {"$set": {"_waitForDelete": True}}, upsert=True)
    handle.client.admin.command({"configureCollectionBalancing": "app.events", "chunkSize": 8})
    body = "balancer:\n  chunkSizeMB: 96\ncollections:\n  app.events:\n    autoMerger: false\n"
    path = policy(tmp_path, body)
    code, out, err = cli("plan", path, "--uri", handle.uri)
    assert code == 0, err
    assert "setting balancer.waitForDelete: on" in out
    assert "setting app.events chunkSizeMB: 8 MB" in out
    assert cli("apply", path, "--uri", handle.uri, "--yes")[0] == 0
    assert (settings_doc(handle, "balancer") or {})["_waitForDelete"] is True
    assert collection_doc(handle, "app.events")["maxChunkSizeBytes"] == 8 * 1024 * 1024
    assert (settings_doc(handle, "chunksize") or {})["value"] == 96


def test_starting_the_balancer_is_followed_by_the_auto_merger_switch(
    sandbox_server: Any, tmp_path: Path
) -> None:
    """balancerStart sets automerge.enabled true on 7.0+ (reference §3.1): the policy's
    `autoMerger: false` is written after it, even when automerge was already off."""
    handle = serve(sandbox_server, "7.0")
    handle.client.admin.command({"balancerStop": 1})
    assert (settings_doc(handle, "automerge") or {})["enabled"] is False
    path = policy(tmp_path, "balancer:\n  enabled: true\n  autoMerger: false\n")
    kinds = [o["description"] for o in _plan_json(path, handle.uri)["ops"]]
    assert kinds == ["start the balancer", "set balancer autoMerger to off"]
    assert cli("apply", path, "--uri", handle.uri, "--yes")[0] == 0
    assert (settings_doc(handle, "balancer") or {})["mode"] == "full"
    assert (settings_doc(handle, "automerge") or {})["enabled"] is False
    assert cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")[0] == 0


def test_the_auto_merger_stays_off_after_apply_restores_the_balancer_it_paused(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve(sandbox_server, "7.0")
    body = "balancer:\n  enabled: true\n  autoMerger: false\n"
    assert cli("apply", policy(tmp_path, body), "--uri", handle.uri, "--yes")[0] == 0
    ranges = (
        body
        + "shards: {s0: [a], s1: [a], s2: [b]}\ncollections:\n  app.users:\n    ranges:\n"
        + "      - {zone: b, min: {u: 0}, max: {u: 500}}\n"
    )
    path = policy(tmp_path, ranges, "ranges.yaml")
    code, _, err = cli("apply", path, "--uri", handle.uri, "--yes", "--pause", "cluster")
    assert code == 0, err
    assert "balancing paused" in err
    assert (settings_doc(handle, "balancer") or {})["mode"] == "full"
    assert (settings_doc(handle, "automerge") or {})["enabled"] is False
    assert cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")[0] == 0


def test_a_saved_plan_is_stale_once_a_setting_changed_by_hand(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve(sandbox_server, "7.0")
    path = policy(tmp_path, "balancer:\n  chunkSizeMB: 64\n")
    saved = str(tmp_path / "plan.json")
    assert cli("plan", path, "--uri", handle.uri, "--save-plan", saved)[0] == 0
    handle.client.config.settings.update_one(
        {"_id": "chunksize"}, {"$set": {"value": 32}}, upsert=True
    )
    code, out, err = cli("apply", "--plan", saved, "--uri", handle.uri, "--yes")
    assert code != 0 and "stale" in err, out + err
    assert (settings_doc(handle, "chunksize") or {})["value"] == 32
