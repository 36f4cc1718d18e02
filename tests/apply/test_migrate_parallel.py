"""Parallel eager migration through the CLI: --budget stops starting moves and leaves the
rest to the balancer, Ctrl-C stops cleanly, a failed move is reported by chunk while the
others go on, and bad --parallel/--budget values are refused before anything is sent."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from apply_kit import MIGRATE, Cluster, Lines, spawn, zonectl
from test_migrate import out_of_zone

from tests.migrate_time.six_shards import CLUSTER, POLICY


def _files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "policy.yaml").write_text(POLICY)
    uri = f"sandbox:{tmp_path / 'cluster.yaml'}?state={tmp_path / 'state.json'}"
    return str(tmp_path / "policy.yaml"), uri


def test_budget_stops_starting_moves_on_the_clusters_clock_and_leaves_the_rest(
    tmp_path: Path,
) -> None:
    policy, uri = _files(tmp_path)
    # 12 moves of 32 MiB at 8 MiB/s: 4 s each of sandbox time, 3 at once. Moves start at
    # 0, 4 and 8 s; at 12 s the 10 s budget is spent and the last 3 are left.
    first = zonectl("apply", policy, "--uri", uri, "--yes", "--migrate", "--parallel", "3",
                    "--budget", "10s")  # fmt: skip
    assert first.code == 0, first.err
    assert "9 chunks moved, 0 skipped, 3 left" in first.err
    assert "--budget reached: 3 chunks (96.0 MiB) left to the balancer" in first.err
    again = zonectl("apply", policy, "--uri", uri, "--yes", "--migrate")
    assert again.code == 0, again.err
    assert "3 chunks moved, 0 skipped, 0 left" in again.err


def test_a_zero_budget_starts_no_move(tmp_path: Path) -> None:
    policy, uri = _files(tmp_path)
    result = zonectl("apply", policy, "--uri", uri, "--yes", "--migrate", "--budget", "0s")
    assert result.code == 0, result.err
    assert "0 chunks moved, 0 skipped, 12 left" in result.err
    assert "left to the balancer" in result.err


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--parallel", "0", "--parallel 0: must be at least 1"),
        ("--parallel", "-3", "--parallel -3: must be at least 1"),
        ("--budget", "-5m", "--budget: '-5m' is not a duration"),
        ("--budget", "soon", "--budget: 'soon' is not a duration"),
    ],
)
def test_bad_parallel_or_budget_is_a_usage_error_before_anything_is_sent(
    option: str, value: str, message: str
) -> None:
    # An address nothing listens on: reaching the network would be exit 1, not 2.
    result = zonectl("apply", str(MIGRATE), "--uri", "mongodb://127.0.0.1:9", "--yes",
                     "--migrate", option, value)  # fmt: skip
    assert result.code == 2, result.err
    assert message in result.err


def test_a_failed_move_is_reported_by_chunk_and_the_others_continue(cluster: Cluster) -> None:
    cluster.tap.arm("moveRange", "app.events", 3, errorCode=20, errmsg="s-std-0 is draining")
    result = zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes", "--migrate")
    assert result.code == 1, result.err  # partial: the namespace is named, once
    assert "5 chunks moved, 0 skipped, 0 left, 1 failed" in result.err
    assert "zonectl: app.events: 1 of 6 moves failed: IllegalOperation: " in result.err
    assert "zonectl: partial: 1 namespace failed; fix the cause" in result.err
    assert "app.events [{ x: " in result.err and "IllegalOperation" in result.err
    assert len(out_of_zone(cluster, "app.events")) == 1


def test_ctrl_c_during_parallel_moves_stops_cleanly(cluster: Cluster) -> None:
    # The second move is held in the sandbox until the test releases it: the SIGINT lands
    # while it runs, and the run cannot end before, however loaded the machine is.
    cluster.tap.hold_until_released("moveRange", "app.events", 2)
    proc = spawn("apply", str(MIGRATE), "--uri", cluster.uri, "--yes", "--migrate")
    err = Lines(proc.stderr)
    try:
        assert cluster.tap.fired.wait(60), err.text(0)
        proc.send_signal(signal.SIGINT)
        # The move already sent is waited for (a migration cannot be recalled), then the rest.
        waiting = "app.events: interrupted: no new move starts; waiting for the"
        assert err.wait_for(waiting, 60), err.text(0)
    finally:
        cluster.tap.release()
    assert proc.wait(timeout=60) == 130, err.text()
    assert cluster.state()["noBalance"]["app.events"] is False
    assert cluster.lease() is None
    assert cluster.open_journals() == []
