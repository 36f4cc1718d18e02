"""Ctrl-C during a fleet run (SIGINT to the process group, as a terminal sends it): every
running cluster stops starting moves, waits for the running ones, restores balancing,
closes its journal and frees the lease; the run exits 130 and a second run converges."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fleet_kit import zonectl

from tests.migrate_time.six_shards import CLUSTER, POLICY
from zonectl.sandbox.clock import Clock
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

# 12 chunks of 32 MiB to move per cluster, 3 at a time, at 32 MiB/s of real time: 1 s a move,
# 4 s for the whole apply; interrupted after the first round has started.
SLOW = CLUSTER.replace("copyRate: 8MiB/s", "copyRate: 32MiB/s")
NS = "app.e"


def slow_cluster(tmp_path: Path) -> Sandbox:
    path = tmp_path / "cluster.yaml"
    path.write_text(SLOW, encoding="utf-8")
    sandbox = Sandbox("7.0", clock=Clock())
    seed.seed(sandbox, seed.load(path), str(path))
    return sandbox


def spawn(*args: str) -> subprocess.Popen[str]:
    """The CLI in its own process group, so SIGINT reaches it as a terminal's Ctrl-C does."""
    return subprocess.Popen(
        [sys.executable, "-m", "zonectl", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )


def wait_for_moves(handles: list[Any]) -> None:
    """Until every cluster has a chunk of NS on a cold shard it did not start with."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if all(moved(h) for h in handles):
            return
        time.sleep(0.05)
    raise AssertionError("no cluster started moving")


def moved(handle: Any) -> int:
    """Chunks of [100, 1300) (hot at the start) now on a cold shard."""
    chunks = handle.client.config.chunks.find({"shard": {"$in": ["c0", "c1", "c2"]}})
    return sum(1 for c in chunks if isinstance(c["min"]["x"], int) and c["min"]["x"] >= 100)


def clean(handle: Any) -> None:
    """Balancing as before, no lease, no open journal."""
    client = handle.client
    assert client.config.collections.find_one({"_id": NS}).get("noBalance", False) is False
    assert client.config.settings.find_one({"_id": "balancer"}, {"stopped": 1}) in (
        None,
        {"_id": "balancer"},
        {"_id": "balancer", "stopped": False},
    )
    assert client.zonectl.locks.find_one({"_id": "apply"}) is None
    assert list(client.zonectl.journal.find({"type": "apply", "state": "open"})) == []


def inventory(tmp_path: Path, handles: list[Any]) -> Path:
    path = tmp_path / "clusters.yaml"
    lines = ["apiVersion: zonectl/v1", "kind: ClusterInventory", "clusters:"]
    lines += [f'  - {{name: c{i}, uri: {{value: "{h.uri}"}}}}' for i, h in enumerate(handles)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "policy.yaml").write_text(POLICY, encoding="utf-8")
    return path


def interrupt(proc: subprocess.Popen[str], handles: list[Any]) -> tuple[str, str, float]:
    wait_for_moves(handles)
    os.killpg(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    out, err = proc.communicate(timeout=30)
    return out, err, time.monotonic() - sent


def test_ctrl_c_stops_every_cluster_of_a_fleet_apply_and_a_second_run_converges(
    sandbox_server: Callable[..., Any], tmp_path: Path
) -> None:
    handles = [sandbox_server(sandbox=slow_cluster(tmp_path)) for _ in range(2)]
    path = inventory(tmp_path, handles)
    args = ("apply", str(tmp_path / "policy.yaml"), "--inventory", str(path), "--yes")
    proc = spawn(*args, "--all", "--migrate")
    out, err, seconds = interrupt(proc, handles)
    assert proc.returncode == 130, err
    assert seconds < 5, err  # the moves running (1 s) end; none of the 9 others starts
    assert "=== cluster c0: interrupted ===" in out and "=== cluster c1: interrupted ===" in out
    assert "0 ok" in err and "2 interrupted" in err
    for handle in handles:
        clean(handle)
        assert 0 < moved(handle) < 12
    code, _out, err = zonectl(*args, "--all", "--migrate")
    assert code == 0, err
    assert all(moved(h) == 12 for h in handles)
