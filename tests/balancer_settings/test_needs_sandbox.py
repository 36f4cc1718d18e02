"""Behaviour that needs the sandbox work of issue 30 part 4 (branch w30sand): an 8.3 profile
and defragmentation through its phases. Each test skips, naming what is missing, while the
sandbox lacks it; nothing here imitates the server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.analyze.kit import SHARDS, serve_cluster
from tests.balancer_settings.kit import cli, policy, settings_doc
from zonectl.sandbox.versions import PROFILES

DOW = [
    {"day": "Monday", "start": "9:00", "stop": "17:00"},
    {"day": "Friday", "start": "14:00", "stop": "18:00"},
]
FRAGMENTED = (
    SHARDS
    + """
collections:
  - {ns: app.frag, key: {k: 1}, chunks: 60, keys: {type: int, start: 0, step: 10},
     distribution: round-robin, chunkSize: {bytes: 65536, docs: 100}}
"""
)


@pytest.mark.skipif("8.3" not in PROFILES, reason="needs w30sand: a sandbox 8.3 profile")
def test_day_of_week_windows_apply_and_converge_on_8_3(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_cluster(sandbox_server, SHARDS, "8.3")
    body = "balancer:\n  activeWindowDOW:\n" + "".join(
        f"    - {{day: {w['day']}, start: '{w['start']}', stop: '{w['stop']}'}}\n" for w in DOW
    )
    path = policy(tmp_path, body)
    assert cli("apply", path, "--uri", handle.uri, "--yes")[0] == 0
    assert (settings_doc(handle, "balancer") or {})["activeWindowDOW"] == DOW
    assert cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")[0] == 0
    code, exported, _ = cli("export", "--uri", handle.uri)
    assert code == 0 and "activeWindowDOW" in exported


def test_defragmenting_sixty_small_chunks_leaves_a_handful_and_an_empty_plan(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, FRAGMENTED, "7.0")
    path = policy(tmp_path, "collections:\n  app.frag:\n    defragment: true\n")
    assert cli("apply", path, "--uri", handle.uri, "--yes")[0] == 0
    handle.sandbox.balancer.run_until_stable(500)
    uuid = handle.client.config.collections.find_one({"_id": "app.frag"})["uuid"]
    chunks = handle.client.config.chunks.count_documents({"uuid": uuid})
    if chunks > 6:
        pytest.skip(f"needs w30sand: defragmentation phases ({chunks} chunks left)")
    code, out, err = cli("plan", path, "--uri", handle.uri, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["ops"] == []
