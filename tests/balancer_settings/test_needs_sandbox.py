"""Behaviour that stands on the sandbox's 8.3 profile and its defragmentation phases
(issue 30 part 4): day-of-week windows converge on 8.3, and a fragmented collection ends
with a handful of chunks and an empty plan."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from tests.analyze.kit import SHARDS, serve_cluster
from tests.balancer_settings.kit import cli, policy, settings_doc
from zonectl.sandbox.balancer.main_loop import run_rounds_until

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
    coll = handle.client.config.collections
    ended = run_rounds_until(
        handle.sandbox.balancer,
        lambda: "defragmentCollection" not in coll.find_one({"_id": "app.frag"}),
        limit=dt.timedelta(hours=2),
    )
    assert ended is not None
    uuid = coll.find_one({"_id": "app.frag"})["uuid"]
    assert handle.client.config.chunks.count_documents({"uuid": uuid}) <= 6
    code, out, err = cli("plan", path, "--uri", handle.uri, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["ops"] == []
