"""The one owner of the tests' child processes (tests/child_procs.py, the `_children`
fixture of tests/conftest.py): a test that fails still has every process it started, and
what those started in the background, reaped when it ends."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import child_procs

ROOT = Path(__file__).resolve().parents[2]

FAILING = """
import child_procs


def test_spawns_and_fails(tmp_path_factory):
    out = {out!r}
    # The leader sleeps; it also starts a grandchild in the background (its process group).
    child_procs.popen(["bash", "-c", f"sleep 600 & echo $! > {{out}}.bg; exec sleep 600"])
    proc = child_procs.popen(["sleep", "600"])
    with open(out, "w") as f:
        f.write(str(proc.pid))
    assert False, "this test fails on purpose"
"""


def _alive(pid: int) -> bool:
    """Running, or killed but not yet gone: an orphan killed with its group is reaped by
    init a moment later (a zombie meanwhile counts as gone)."""
    for _ in range(200):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except FileNotFoundError:
            return False
        if stat.rpartition(")")[2].split()[0] == "Z":
            return False
        time.sleep(0.05)
    return True


def _read_pid(path: Path) -> int:
    for _ in range(200):  # the background shell writes it as it starts
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{path} was never written")


def test_a_failing_test_has_its_children_and_their_children_reaped(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    (tmp_path / "test_inner.py").write_text(FAILING.format(out=str(pids)))
    done = child_procs.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest",
         str(tmp_path / "test_inner.py")],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout and "this test fails on purpose" in done.stdout
    child, grandchild = _read_pid(pids), _read_pid(Path(f"{pids}.bg"))
    assert not _alive(child), f"sleep {child} outlived the failed test"
    assert not _alive(grandchild), f"background sleep {grandchild} outlived the failed test"
