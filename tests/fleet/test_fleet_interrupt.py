"""Ctrl-C during a fleet run (SIGINT to the process group, as a terminal sends it): every
running cluster stops starting moves, waits for the running ones, restores balancing,
closes its journal and frees the lease; the run exits 130 and a second run converges.
Clusters beyond --jobs are skipped (also on SIGTERM); a second Ctrl-C is explained; a
cluster lost mid clean-up names its `recover --cluster`.
A fleet `doctor --probe` stops between its steps and removes its scratch objects."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import child_procs
import pytest
from fleet_kit import zonectl

from tests.doctor.doctor_kit import demo_sandbox, snapshot
from tests.migrate_time.six_shards import CLUSTER, POLICY
from zonectl.sandbox.clock import Clock
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.seed.growth import grow, instants
from zonectl.sandbox.state import Sandbox

# 12 chunks of 32 MiB to move per cluster, 3 at a time, at 32 MiB/s of sandbox time running
# at twice real time: 0.5 s a move, each held 1 s first (slow_moves); interrupted once a move
# has reached every cluster.
SLOW = CLUSTER.replace("copyRate: 8MiB/s", "copyRate: 32MiB/s")
NS = "app.e"
ROOT = Path(__file__).resolve().parents[2]
ROTATE_POLICY = ROOT / "tests" / "rotate" / "fixtures" / "firehose-policy.yaml"
FIREHOSE = Path(seed.__file__).resolve().parent / "data" / "firehose.yaml"
AT = "2026-03-02T00:05:00Z"


def slow_cluster(tmp_path: Path, cluster: str = SLOW) -> Sandbox:
    path = tmp_path / "cluster.yaml"
    path.write_text(cluster, encoding="utf-8")
    sandbox = Sandbox("7.0", clock=Clock(scale=2.0))
    seed.seed(sandbox, seed.load(path), str(path))
    return sandbox


def spawn(*args: str) -> subprocess.Popen[str]:
    """The CLI in its own process group, so SIGINT reaches it as a terminal's Ctrl-C does."""
    return child_procs.popen(
        [sys.executable, "-m", "zonectl", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )


def _users(handle: Any) -> dict[str, Any]:
    """A config.chunks filter for the users' collections: not config.system.sessions, which
    every cluster (and the sandbox) has."""
    collections = handle.client.config.collections.find()
    uuids = [d["uuid"] for d in collections if not d["_id"].startswith("config.")]
    return {"uuid": {"$in": uuids}}


def slow_moves(handle: Any, mode: str) -> int:
    """failCommand holds each moveRange/moveChunk 1 s before it runs ("off": no longer).
    Returns the moves held so far: configureFailPoint answers with the point's `count`
    (fail_point.cpp timesEntered), which setting the same mode again does not reset."""
    reply = handle.client.admin.command(
        "configureFailPoint",
        "failCommand",
        mode=mode,
        data={"failCommands": ["moveRange", "moveChunk"], "blockConnection": True,
              "blockTimeMS": 1_000},
    )  # fmt: skip
    return int(reply["count"])


def wait_until_each_moves(handles: list[Any], proc: subprocess.Popen[str]) -> None:
    """Until a move has reached every cluster: counted where it arrives, so a cluster that
    is quick (or one that is slow to start) cannot make the wait miss it. Each cluster then
    has a move held 1 s and more queued behind it: the Ctrl-C lands mid-queue on all."""
    deadline = time.monotonic() + 60
    while not all(slow_moves(h, "alwaysOn") > 0 for h in handles):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)


def moved(handle: Any) -> int:
    """Chunks of [100, 1300) (hot at the start) now on a cold shard."""
    chunks = handle.client.config.chunks.find(
        {**_users(handle), "shard": {"$in": ["c0", "c1", "c2"]}}
    )
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


def interrupt(
    proc: subprocess.Popen[str], handles: list[Any], sig: int = signal.SIGINT
) -> tuple[str, str]:
    wait_until_each_moves(handles, proc)
    os.killpg(proc.pid, sig)
    return proc.communicate(timeout=30)  # a hang guard only: the counts below say it stopped


def test_ctrl_c_stops_every_cluster_of_a_fleet_apply_and_a_second_run_converges(
    sandbox_server: Callable[..., Any], tmp_path: Path
) -> None:
    handles = [sandbox_server(sandbox=slow_cluster(tmp_path)) for _ in range(2)]
    for handle in handles:
        slow_moves(handle, "alwaysOn")
    path = inventory(tmp_path, handles)
    args = ("apply", str(tmp_path / "policy.yaml"), "--inventory", str(path), "--yes")
    proc = spawn(*args, "--all", "--migrate")
    out, err = interrupt(proc, handles)
    assert proc.returncode == 130, err
    assert "=== cluster c0: interrupted ===" in out and "=== cluster c1: interrupted ===" in out
    assert "0 ok" in err and "2 interrupted" in err
    for name in ("c0", "c1"):
        assert f"[{name}] zonectl: app.e: interrupted: no new move starts; waiting for the" in err
    for handle in handles:
        clean(handle)
        assert 0 < moved(handle) < 12  # the running moves ended; the others never started
        slow_moves(handle, "off")
    code, _out, err = zonectl(*args, "--all", "--migrate")
    assert code == 0, err
    assert all(moved(h) == 12 for h in handles)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_clusters_not_yet_started_are_skipped_and_left_untouched(
    sandbox_server: Callable[..., Any], tmp_path: Path, sig: int
) -> None:
    handles = [sandbox_server(sandbox=slow_cluster(tmp_path)) for _ in range(2)]
    before = list(handles[1].client.config.tags.find({}, {"_id": 0}))
    slow_moves(handles[0], "alwaysOn")
    path = inventory(tmp_path, handles)
    args = ("apply", str(tmp_path / "policy.yaml"), "--inventory", str(path), "--yes")
    proc = spawn(*args, "--all", "--migrate", "--jobs", "1")
    out, err = interrupt(proc, handles[:1], sig)
    assert proc.returncode == 130, err
    assert "=== cluster c0: interrupted ===" in out and "=== cluster c1: skipped ===" in out
    assert "0 ok, 0 failed, 1 interrupted, 1 skipped; exit 130" in err
    assert list(handles[1].client.config.tags.find({}, {"_id": 0})) == before
    assert moved(handles[1]) == 0
    clean(handles[0])


def test_a_second_ctrl_c_during_the_clean_up_says_what_is_still_being_restored(
    sandbox_server: Callable[..., Any], tmp_path: Path
) -> None:
    # At the cluster file's 8 MiB/s, 2 s a move: the second Ctrl-C lands while the running
    # moves are waited for.
    handles = [sandbox_server(sandbox=slow_cluster(tmp_path, CLUSTER)) for _ in range(2)]
    for handle in handles:
        slow_moves(handle, "alwaysOn")
    path = inventory(tmp_path, handles)
    args = ("apply", str(tmp_path / "policy.yaml"), "--inventory", str(path), "--yes")
    proc = spawn(*args, "--all", "--migrate")
    lines: list[str] = []
    readers = [
        threading.Thread(target=lambda: lines.extend(proc.stderr or ()), daemon=True),
        threading.Thread(target=lambda: (proc.stdout or "").read(), daemon=True),
    ]
    for reader in readers:
        reader.start()
    wait_until_each_moves(handles, proc)
    os.killpg(proc.pid, signal.SIGINT)
    deadline = time.monotonic() + 30  # the second Ctrl-C lands once the wind-down has begun
    while not any("zonectl: interrupted: waiting for" in line for line in lines):
        assert time.monotonic() < deadline and proc.poll() is None, "".join(lines)
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=30)
    for reader in readers:
        reader.join(timeout=30)
    err = "".join(lines)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "zonectl: still cleaning up; Ctrl-C again changes nothing:" in err
    for name in ("c0", "c1"):
        assert (
            f"  {name}: waiting for its running moves, then restoring: balancing of app.e "
            "(noBalance); journal "
        ) in err
        assert f"run `zonectl recover --cluster {name}`" in err
    for handle in handles:
        clean(handle)


def firehose_cluster() -> Sandbox:
    """The firehose cluster grown every 3 hours of 1 March: 8 chunks of app.events on the hot
    shard leave the window at the 2 March rotation, one move at a time (one donor), each
    the migration floor of 1 s of sandbox time, run at twice real time: 0.5 s."""
    sandbox = Sandbox("7.0", clock=Clock(scale=2.0))
    seed.seed(sandbox, seed.load(FIREHOSE), str(FIREHOSE))
    day1 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    grow(sandbox, "app.events", instants(day1, day1 + dt.timedelta(days=1), dt.timedelta(hours=3)))
    return sandbox


def on_hot(handle: Any) -> int:
    return handle.client.config.chunks.count_documents({**_users(handle), "shard": "shard-10x"})


def test_ctrl_c_stops_a_fleet_rotate_migrate_and_a_second_run_converges(
    sandbox_server: Callable[..., Any], tmp_path: Path
) -> None:
    handles = [sandbox_server(sandbox=firehose_cluster()) for _ in range(2)]
    path = inventory(tmp_path, handles)
    for handle in handles:
        slow_moves(handle, "alwaysOn")
    args = ("rotate", str(ROTATE_POLICY), "--inventory", str(path), "--at", AT, "--yes")
    proc = spawn(*args, "--all", "--migrate")
    wait_until_each_moves(handles, proc)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "=== cluster c0: interrupted ===" in out and "2 interrupted" in err
    for handle in handles:
        assert handle.client.zonectl.locks.find_one({"_id": "apply"}) is None
        assert list(handle.client.zonectl.journal.find({"state": "open"})) == []
        balanced = handle.client.config.collections.find({"noBalance": True})
        assert list(balanced) == []
    left = [on_hot(h) for h in handles]
    assert all(n > 4 for n in left), left  # most of the 8 moves never started
    for handle in handles:
        slow_moves(handle, "off")
    code, _out, err = zonectl(*args, "--all", "--migrate")
    assert code == 0, err
    # Each collection keeps only its top chunk [2 March, MaxKey) on the hot shard.
    assert [on_hot(h) for h in handles] == [2, 2]


def probe_zone_on(handle: Any) -> bool:
    shards = handle.client.config.shards.find({})
    return any(str(t).startswith("zonectl_probe_") for d in shards for t in d.get("tags") or ())


def test_ctrl_c_stops_a_fleet_doctor_probe_and_each_cluster_cleans_up(
    sandbox_server: Callable[..., Any], tmp_path: Path
) -> None:
    handles = [sandbox_server(sandbox=demo_sandbox()) for _ in range(2)]
    before = [snapshot(h.client) for h in handles]
    for handle in handles:  # the range command waits 1 s (then succeeds): Ctrl-C lands there
        handle.client.admin.command(
            "configureFailPoint",
            "failCommand",
            mode={"times": 1},
            data={"failCommands": ["updateZoneKeyRange"], "blockConnection": True,
                  "blockTimeMS": 1_000},
        )  # fmt: skip
    path = inventory(tmp_path, handles)
    proc = spawn("doctor", "--probe", "--inventory", str(path), "--all")
    deadline = time.monotonic() + 30
    while not all(probe_zone_on(h) for h in handles):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out + err
    assert "2 interrupted" in err
    assert [snapshot(h.client) for h in handles] == before


def test_a_cluster_lost_during_the_clean_up_names_its_recover_and_the_run_exits_130(
    sandbox_server: Callable[..., Any], tmp_path: Path
) -> None:
    # The test's own client of c1 gives up on it soon once c1 is gone: closing it ends
    # its sessions, which waited 5 s for a server (the suite's serverSelectionTimeoutMS).
    quick = {"serverSelectionTimeoutMS": 300}
    handles = [
        sandbox_server(sandbox=slow_cluster(tmp_path), client_options=options)
        for options in ({}, quick)
    ]
    path = inventory(tmp_path, handles)
    lost = handles[1]
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(lost.uri, f"{lost.uri}?serverSelectionTimeoutMS=300"))
    args = ("apply", str(tmp_path / "policy.yaml"), "--inventory", str(path), "--yes")
    for handle in handles:
        slow_moves(handle, "alwaysOn")
    proc = spawn(*args, "--all", "--migrate")
    wait_until_each_moves(handles, proc)
    lost.server.close()  # c1 goes away with its moves running and app.e paused
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "=== cluster c1: needs human ===" in out
    # c1's move workers say what became of their moves under its name, as c1 itself does.
    assert [line for line in err.splitlines() if line.startswith("zonectl: app.e")] == []
    assert "[c1] zonectl: error: could not restore balancing of app.e" in err
    assert "`zonectl recover --cluster c1`" in err
    clean(handles[0])
    # c1 back (same cluster, new address): the named command finishes its clean-up.
    back = sandbox_server(sandbox=lost.sandbox)
    path.write_text(text.replace(lost.uri, back.uri), encoding="utf-8")
    code, _out, err = zonectl("recover", "--inventory", str(path), "--cluster", "c1")
    assert code == 0, err
    assert "recovered: " in err
    clean(back)
