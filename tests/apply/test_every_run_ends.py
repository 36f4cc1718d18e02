"""Every run ends (issue 37): a mongos that goes away mid-`apply --migrate` (a rolling
upgrade) ends the run within --wait-timeout, exit 5 naming `zonectl recover` with the
journal kept, and recover then apply converge once it is back; SIGTERM ends apply, and any
other command, as Ctrl-C does (exit 130), even while a move never ends."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import child_procs
from apply_kit import MIGRATE, Cluster, Lines, spawn, zonectl
from pymongo import MongoClient

from tests.migrate_time.six_shards import CLUSTER, POLICY

# What a loaded machine may add to a bound the product states (process start-up and
# scheduling); the product's own bound is what the test sets (--wait-timeout).
SLACK_S = 20


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _sandbox(tmp_path: Path, port: int, scale: str = "1") -> subprocess.Popen[str]:
    """`zonectl sandbox` on `port` with its state in tmp_path (saved when it stops); in real
    time each of the 12 moves lasts 4 s."""
    proc = child_procs.popen(
        [sys.executable, "-m", "zonectl", "sandbox", "--port", str(port), "--cluster",
         str(tmp_path / "cluster.yaml"), "--state", str(tmp_path / "state.json"),
         "--balancer-interval", "0", "--time-scale", scale],
        stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stderr is not None
    assert f"127.0.0.1:{port}/" in proc.stderr.readline()
    return proc


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)  # the sandbox saves its state and exits
    assert proc.wait(timeout=60) == 0


def test_a_mongos_gone_mid_apply_ends_the_run_with_exit_5_then_recover_and_apply_converge(
    tmp_path: Path,
) -> None:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "policy.yaml").write_text(POLICY)
    port = _free_port()
    uri = f"mongodb://127.0.0.1:{port}"
    sandbox = _sandbox(tmp_path, port)
    proc = spawn("apply", str(tmp_path / "policy.yaml"), "--uri", uri, "--yes", "--migrate",
                 "--wait-timeout", "5s")  # fmt: skip
    err = Lines(proc.stderr)
    # The ranges are written: app.e is paused and its moves start now.
    assert err.wait_for("done   assign [{ x: 1300 }, { x: MaxKey }) of app.e", 60), err.text(0)
    _stop(sandbox)
    code = proc.wait(timeout=5 + SLACK_S)  # unbounded before: still resending after 90 s
    text = err.text()
    assert code == 5, text
    assert "zonectl: error: could not restore balancing of app.e (the mongos has not " in text
    assert "(--wait-timeout 5s))" in text
    assert "then 'zonectl recover'" in text
    sandbox = _sandbox(tmp_path, port, scale="10")  # back, with the state it saved
    client: MongoClient[dict[str, object]] = MongoClient(uri, serverSelectionTimeoutMS=10_000)
    try:
        # The journal was kept: the pause is there for recover to undo.
        opened = list(client.zonectl.journal.find({"type": "apply", "state": "open"}))
        assert len(opened) == 1
        assert client.config.collections.find_one({"_id": "app.e"})["noBalance"] is True
        recovered = zonectl("recover", "--uri", uri)
        assert recovered.code == 0, recovered.err
        assert "restored noBalance: False on app.e" in recovered.err
        assert zonectl("apply", str(tmp_path / "policy.yaml"), "--uri", uri, "--yes",
                       "--migrate").code == 0  # fmt: skip
        plan = zonectl("plan", str(tmp_path / "policy.yaml"), "--uri", uri, "--detailed-exitcode")
        assert plan.code == 0, plan.out + plan.err
        assert "Forecast: nothing to move; every chunk is in its zone." in plan.out
        assert client.config.collections.find_one({"_id": "app.e"})["noBalance"] is False
        assert client.zonectl.locks.find_one({"_id": "apply"}) is None
    finally:
        client.close()
        _stop(sandbox)


def test_sigterm_ends_apply_while_a_move_never_ends_and_restores_balancing(
    cluster: Cluster,
) -> None:
    cluster.tap.hold_until_released("moveRange", "app.events", 2)  # released at teardown
    proc = spawn("apply", str(MIGRATE), "--uri", cluster.uri, "--yes", "--migrate")
    err = Lines(proc.stderr)
    try:
        assert cluster.tap.fired.wait(60), err.text(0)
        proc.send_signal(signal.SIGTERM)
        # Ctrl-C would wait for the held move to its end; SIGTERM waits 5 s for it.
        code = proc.wait(timeout=15)
    finally:
        cluster.tap.release()
    assert code == 130, err.text()
    assert "zonectl: interrupted" in err.text()
    assert cluster.state()["noBalance"]["app.events"] is False
    assert cluster.lease() is None
    assert cluster.open_journals() == []
    steps = cluster.client.zonectl.journal.find({"status": "interrupted (may still run)"})
    assert [s["kind"] for s in steps] == ["move_range"]


def test_sigterm_ends_a_read_only_command_as_ctrl_c_does(cluster: Cluster) -> None:
    for command in (["plan", str(MIGRATE)], ["status"]):
        cluster.tap.hold_until_released("find", "config.shards", 1)
        proc = spawn(*command, "--uri", cluster.uri)
        err = Lines(proc.stderr)
        try:
            assert cluster.tap.fired.wait(60), err.text(0)
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=15)  # killed outright before (-15), nothing said
        finally:
            cluster.tap.release()
        assert code == 130, (command, err.text())
        assert err.text().strip().endswith("zonectl: interrupted"), err.text()


def test_sigterm_while_the_command_modules_load_ends_quietly_with_130() -> None:
    """A signal in the first fraction of a second (the command's modules importing, before
    run_guarded) printed a traceback from _terminate. The real main(), its loading made to
    take a SIGTERM (deterministic, where a sleep-then-kill would race)."""
    script = (
        "import os, signal, sys\n"
        "import zonectl.cli.app as app\n"
        "def loading(args):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    signal.pause()\n"
        "app._register = loading\n"
        "sys.argv = ['zonectl', 'status']\n"
        "app.main()\n"
    )
    done = child_procs.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (130, "zonectl: interrupted\n"), done.stderr
