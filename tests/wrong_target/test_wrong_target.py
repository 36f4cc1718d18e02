"""zonectl refuses a target that is not a mongos, before it reads or changes anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import child_procs
import pytest
from pymongo import MongoClient

from zonectl.sandbox.launch import serve
from zonectl.sandbox.state import Sandbox

ROOT = Path(__file__).resolve().parents[2]


def _zonectl(*args: str) -> subprocess.CompletedProcess[str]:
    return child_procs.run(
        [sys.executable, "-m", "zonectl", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


@pytest.mark.parametrize("topology", ["standalone", "replicaSet"])
def test_pymongo_sees_the_sandbox_as_the_topology_it_poses_as(topology: str) -> None:
    with serve(Sandbox("7.0", topology=topology)) as server:
        client: MongoClient[dict[str, object]] = MongoClient(
            server.uri, serverSelectionTimeoutMS=5000
        )
        try:
            client.admin.command("ping")
            expected = "Single" if topology == "standalone" else "ReplicaSetWithPrimary"
            assert client.topology_description.topology_type_name == expected
        finally:
            client.close()


@pytest.mark.parametrize("command", ["plan", "apply"])
@pytest.mark.parametrize("topology", ["standalone", "replicaSet"])
def test_plan_and_apply_refuse_a_target_that_is_not_a_mongos(topology: str, command: str) -> None:
    uri = f"sandbox:?topology={topology}"
    extra = ["--yes"] if command == "apply" else []
    result = _zonectl(command, "policies/demo", "--uri", uri, *extra)
    assert result.returncode == 1, result.stderr
    assert "is not a mongos" in result.stderr
    assert "point --uri at a mongos router" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_an_unknown_topology_in_a_sandbox_uri_is_a_usage_error() -> None:
    result = _zonectl("plan", "policies/demo", "--uri", "sandbox:?topology=sharded")
    assert result.returncode == 2
    assert "unknown topology 'sharded'" in result.stderr
