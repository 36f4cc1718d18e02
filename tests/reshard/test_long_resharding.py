"""Apply stays safe around a resharding that runs for a long (simulated) time: Ctrl-C
aborts it and waits, --budget aborts it before its critical section, --detach leaves it
running; each test reads the cluster back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import child_procs
from reshard_kit import policy, zonectl

from zonectl.sandbox.catalog.volumes import Disk

MAIN = Path(__file__).resolve().parents[1] / "apply" / "zonectl_main.py"
OPTED = (
    "    key: {newKey: 1}\n"
    "    reshard: true\n"
    "    ranges:\n"
    "      - {zone: eu, min: {newKey: 250}, max: {newKey: {$maxKey: 1}}}\n"
)
GIB = 1024**3


def big(handle: Any, gib_per_chunk: int) -> Any:
    """Give db.foo's three chunks a nominal size, so the resharding takes simulated hours,
    on volumes large enough for its copy (apply refuses a plan that would fill a disk)."""
    cluster = handle.sandbox.cluster
    store = cluster.chunks("db.foo")
    for i in range(len(store)):
        store.set_size(i, gib_per_chunk * GIB, store.count_at(i))
    for shard in cluster.shard_names():
        cluster.volumes.disks[shard] = Disk(64 * 1024 * GIB, 0)
    return handle


def _wait_running(handle: Any) -> None:
    for _ in range(2000):
        if handle.client.config.reshardingOperations.count_documents({}):
            return
        threading.Event().wait(0.01)
    raise AssertionError("the resharding never showed in config.reshardingOperations")


def test_ctrl_c_aborts_the_resharding_and_waits_for_the_abort(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = big(foo(), 1024)
    path = policy(tmp_path, OPTED)
    proc = child_procs.popen(
        [sys.executable, str(MAIN), "apply", path, "--uri", sb.uri, "--yes"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ),
    )
    _wait_running(sb)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "aborting the resharding" in err
    config = sb.client.config
    assert config.collections.find_one({"_id": "db.foo"})["key"] == {"oldKey": 1}
    assert config.reshardingOperations.count_documents({}) == 0
    assert (
        config.changelog.count_documents(
            {"what": "resharding.coordinator.transition", "details.newState": "aborting"}
        )
        == 1
    )
    assert sb.client.zonectl.locks.find_one({"_id": "apply"}) is None


def test_budget_aborts_before_the_critical_section_when_the_estimate_overruns(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = big(foo(), 100)  # ~100 GiB per shard to clone: far beyond 10 minutes
    path = policy(tmp_path, OPTED)
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes", "--budget", "10m")
    assert code == 1 and "resharding aborted by --budget" in err
    config = sb.client.config
    assert config.collections.find_one({"_id": "db.foo"})["key"] == {"oldKey": 1}
    assert config.reshardingOperations.count_documents({}) == 0


def test_budget_shorter_than_the_minimum_duration_is_refused_before_anything_is_written(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = foo()
    path = policy(tmp_path, OPTED)
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes", "--budget", "60s")
    assert code == 1 and "minimum duration" in err and "nothing was changed" in err
    assert sb.client.config.changelog.count_documents({"what": {"$regex": "^resharding"}}) == 0


def test_detach_leaves_the_resharding_running_and_the_next_apply_starts_no_second(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = big(foo(), 2)
    path = policy(tmp_path, OPTED)
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes", "--detach")
    assert code == 0 and "detached" in err
    running = sb.client.config.reshardingOperations.find_one()
    if running is not None:  # still in flight: the next plan leaves it alone
        code, out, _ = zonectl("plan", path, "--uri", sb.uri)
        assert "a resharding to { newKey: 1 } is in progress on the server" in out
    for _ in range(600):  # polls far apart: a quiet sandbox lets its virtual clock move on
        if not sb.client.config.reshardingOperations.count_documents({}):
            break
        threading.Event().wait(0.1)
    assert sb.client.config.collections.find_one({"_id": "db.foo"})["key"] == {"newKey": 1}
    assert (
        sb.client.config.changelog.count_documents(
            {"what": "resharding.coordinator.transition", "details.newState": "cloning"}
        )
        == 1
    )
