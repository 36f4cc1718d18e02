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
collections:
  app.events:
    chunkSizeMB: 32
    autoMerger: false
    balancing: true
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
    described = [o["description"] for o in plan["ops"]]
    assert described == [
        "set chunkSizeMB of app.events to 32 MB",
        "set autoMerger of app.events to off",
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
    code, out, err = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err
