"""status shows the balancer settings the cluster stores; with a policy, which are managed,
which drift from it, and which are unmanaged (issue 30 part 5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.balancer_settings.kit import cli, policy, serve


def test_status_lists_stored_settings_and_with_a_policy_their_drift(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve(sandbox_server, "7.0")
    config = handle.client.config
    config.settings.update_one({"_id": "chunksize"}, {"$set": {"value": 64}}, upsert=True)
    config.settings.update_one({"_id": "balancer"}, {"$set": {"_waitForDelete": True}}, upsert=True)
    handle.client.admin.command({"configureCollectionBalancing": "app.events", "chunkSize": 16})
    code, out, err = cli("status", "--uri", handle.uri)
    assert code == 0, err
    assert "balancer.chunkSizeMB: 64 MB (set)" in out
    assert "app.events chunkSizeMB: 16 MB (set)" in out
    body = "balancer:\n  chunkSizeMB: 64\n  autoMerger: false\n"
    body += "collections:\n  app.events:\n    chunkSizeMB: 32\n"
    code, out, err = cli("status", policy(tmp_path, body), "--uri", handle.uri, "--format", "json")
    assert code == 0, err
    lines = {x["name"]: x for x in json.loads(out)["settings"]}
    assert lines["balancer.chunkSizeMB"]["state"] == "managed"
    assert lines["balancer.waitForDelete"]["state"] == "unmanaged"
    assert lines["balancer.autoMerger"] == {
        "name": "balancer.autoMerger",
        "live": "on",
        "state": "drift",
        "wanted": "off",
        "stored": 'config.settings {_id: "automerge"} `enabled`',
    }
    assert lines["app.events chunkSizeMB"]["state"] == "drift"
    assert lines["app.events chunkSizeMB"]["live"] == "16 MB"


def test_the_metrics_count_a_drifting_setting(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve(sandbox_server, "7.0")
    body = "balancer:\n  autoMerger: false\ncollections:\n  app.events:\n    autoMerger: true\n"
    code, out, err = cli(
        "status", policy(tmp_path, body), "--uri", handle.uri, "--format", "openmetrics"
    )
    assert code == 0, err
    drift = [x for x in out.splitlines() if x.startswith("zonectl_balancer_setting_drift{")]
    assert len(drift) == 2, out
    assert any('setting="autoMerger"} 1' in x and "namespace" not in x for x in drift)
    assert any('namespace="app.events",setting="autoMerger"} 0' in x for x in drift)


def test_doctor_names_drifting_settings_and_those_the_release_lacks(
    sandbox_server: Any, tmp_path: Path
) -> None:
    seven = serve(sandbox_server, "7.0")
    body = "balancer:\n  chunkSizeMB: 32\n  autoMerger: false\n"
    code, out, err = cli("doctor", "--uri", seven.uri, policy(tmp_path, body))
    assert code == 0, out + err
    assert "policy:settings" in out + err
    assert "2 to change: balancer.chunkSizeMB unset (MongoDB's default) -> 32 MB" in out + err
    six = serve(sandbox_server, "6.0")
    code, out, err = cli("doctor", "--uri", six.uri, policy(tmp_path, body))
    assert code == 0, out + err  # a warning, not a failure (unless --strict)
    assert "balancer.autoMerger needs MongoDB 7.0+" in out + err
