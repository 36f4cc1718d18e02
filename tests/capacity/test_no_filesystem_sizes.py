"""A shard whose statfs fails answers fsUsedSize and fsTotalSize -1 in dbStats (MongoDB's
getStats): plan and apply warn naming it (its disk is not checked), and status notes it;
never taken for a volume of -1 bytes, never a silent pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from capacity_kit import AT, cluster, make_sandbox, policy, zonectl

UNREADABLE = cluster().replace(
    "{name: s1, disk: {size: 20GiB, baseline: 14GiB}}",
    "{name: s1, disk: {size: 20GiB, baseline: 14GiB, unreadable: true}}",
)
NOTICE = (
    "disk capacity of shard s1 not checked: it reports no filesystem sizes "
    "(fsUsedSize/fsTotalSize) in dbStats on app; it receives data in this plan"
)


def test_a_shard_without_filesystem_sizes_is_named_by_plan_and_apply(
    sandbox_server: Any, tmp_path: Path
) -> None:
    sb = sandbox_server("8.0", sandbox=make_sandbox("8.0", UNREADABLE))
    # s1 holds nothing of app (zeros there); admin, which every shard holds, shows the -1
    raw = sb.client.admin.command({"dbStats": 1})["raw"]
    assert sorted((d["fsUsedSize"], d["fsTotalSize"]) for d in raw.values())[0] == (-1.0, -1.0)
    code, out, err = zonectl("plan", policy(tmp_path), "--uri", sb.uri, "--at", AT, "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert NOTICE in doc["warnings"]
    assert f"zonectl: warning: {NOTICE}" in err.splitlines()
    assert [s["shard"] for s in doc["capacity"]["shards"]] == ["s0", "s2"]
    assert doc["capacity"]["blocked"] == []
    code, out, err = zonectl("apply", policy(tmp_path), "--uri", sb.uri, "--dry-run")
    assert code == 0, err
    assert f"zonectl: warning: {NOTICE}" in err.splitlines()


def test_status_notes_a_shard_without_filesystem_sizes(sandbox_server: Any) -> None:
    sb = sandbox_server("8.0", sandbox=make_sandbox("8.0", UNREADABLE))
    code, out, err = zonectl("status", "--uri", sb.uri, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert (
        "disk use of shard s1 not known: it reports no filesystem sizes "
        "(fsUsedSize/fsTotalSize) in dbStats"
    ) in doc["notes"]
    assert [s["shard"] for s in doc["disk"]["shards"]] == ["s0", "s2"]
    code, out, err = zonectl("status", "--uri", sb.uri, "--format", "openmetrics")
    assert code == 0, err
    assert 'shard="s1"' not in out
