"""Version gates (reference balancer-settings §0): a key the cluster's release does not have
gets a plan line naming the release it needs and nothing is written for it; keys it does
have still converge. Also `defragment` on a namespace that is not sharded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.balancer_settings.kit import cli, collection_doc, policy, serve, settings_doc

SEVEN_ONLY = """balancer:
  chunkSizeMB: 64
  autoMerger: false
collections:
  app.events:
    autoMerger: false
    chunkSizeMB: 32
"""


def test_auto_merger_on_6_0_is_a_gate_line_and_nothing_is_written(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve(sandbox_server, "6.0")
    path = policy(tmp_path, SEVEN_ONLY)
    code, out, err = cli("plan", path, "--uri", handle.uri, "--format", "json")
    assert code == 0, err
    plan = json.loads(out)
    assert [o["description"] for o in plan["ops"]] == [
        "set chunkSizeMB of app.events to 32 MB",
        "set balancer chunkSizeMB to 64 MB",
    ]
    gates = [w for w in plan["warnings"] if "needs MongoDB 7.0+" in w]
    assert len(gates) == 2
    assert any(w.startswith(f"{path}:5:3: `balancer.autoMerger`") for w in gates), gates
    assert any(w.startswith(f"{path}:8:5: `app.events autoMerger`") for w in gates)
    assert cli("apply", path, "--uri", handle.uri, "--yes")[0] == 0
    assert settings_doc(handle, "automerge") is None
    assert "enableAutoMerge" not in collection_doc(handle, "app.events")
    assert collection_doc(handle, "app.events")["maxChunkSizeBytes"] == 32 << 20
    code, out, err = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0 and "needs MongoDB 7.0+" in err, out + err


def test_day_of_week_windows_before_8_3_are_a_gate_line_and_nothing_is_written(
    sandbox_server: Any, tmp_path: Path
) -> None:
    """The 8.0-8.2 validator refuses activeWindowDOW, older servers ignore it (§1.4)."""
    handle = serve(sandbox_server, "8.0")
    body = "balancer:\n  activeWindowDOW:\n    - {day: Monday, start: '9:00', stop: '17:00'}\n"
    path = policy(tmp_path, body)
    code, out, err = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err
    assert "`balancer.activeWindowDOW` needs MongoDB 8.3+" in err
    assert "activeWindowDOW" not in (settings_doc(handle, "balancer") or {})


def test_defragment_on_a_namespace_that_is_not_sharded_is_a_plan_line(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve(sandbox_server, "7.0")
    path = policy(tmp_path, "collections:\n  app.nothere:\n    defragment: true\n")
    code, out, err = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err
    assert f"{path}:5:5: app.nothere is not sharded: `defragment` is ignored" in err
