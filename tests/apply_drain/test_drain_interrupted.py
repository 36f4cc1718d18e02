"""A drain interrupted (kill -9 while zonectl moves the shard's chunks, SIGTERM while it
reads the drain's progress): `zonectl recover` restores balancing and reports the shard
left draining without undoing it, and the next apply resumes the drain and converges."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from apply_kit import Lines, Tap, spawn
from drain_kit import kept, policy, shards, zonectl

# What a loaded machine may add to a child's start-up and shutdown; no bound of the product.
SLACK_S = 60


def test_kill_9_mid_migrate_drain_then_recover_then_apply_converges(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    before = kept(sb.client)
    path = policy(tmp_path)
    tap = Tap(sb.sandbox)
    tap.hold_until_released("moveRange", "app.users", 1)  # the first move off s1
    proc = spawn("apply", path, "--uri", sb.uri, "--yes", "--migrate")
    err = Lines(proc.stderr)
    try:
        assert tap.fired.wait(SLACK_S), err.text(0)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=SLACK_S) == -signal.SIGKILL
    finally:
        tap.release()  # the held migration ends on the cluster, as a real one would
    assert shards(sb.client)["s1"]["draining"] is True  # the drain was started before the moves
    assert kept(sb.client)["noBalance"]["app.users"] is True  # paused by the dead run
    code, _, out = zonectl("recover", "--uri", sb.uri)
    assert code == 0, out
    assert "zonectl: recovered: apply " in out
    assert ": restored noBalance: False on app.users" in out
    apply_id = sb.client.zonectl.journal.find_one({"type": "apply"})["_id"]
    assert (f"zonectl: shard s1 is draining (started by apply {apply_id}): it still holds ") in out
    assert (
        "; recover does not undo a drain: `zonectl apply` resumes it and commits the removal "
        "once it is empty (`--migrate` moves its chunks now)"
    ) in out
    assert kept(sb.client) == before
    assert shards(sb.client)["s1"]["draining"] is True  # recover left the drain as it was
    code, _, out = zonectl("apply", path, "--uri", sb.uri, "--yes", "--migrate")
    assert code == 0, out
    assert "zonectl: shard s1 removed from the cluster" in out
    assert set(shards(sb.client)) == {"s0", "s2"}
    assert kept(sb.client) == before
    code, out, err2 = zonectl("plan", path, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0, out + err2


def test_sigterm_while_apply_reads_the_drain_ends_it_and_the_next_apply_resumes(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    before = kept(sb.client)
    path = policy(tmp_path)
    tap = Tap(sb.sandbox)
    tap.hold_until_released("removeShard", "admin.s1", 2)  # the progress check after the start
    proc = spawn("apply", path, "--uri", sb.uri, "--yes")
    err = Lines(proc.stderr)
    try:
        assert tap.fired.wait(SLACK_S), err.text(0)
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=SLACK_S)
    finally:
        tap.release()
    text = err.text()
    assert code == 130, text
    assert "zonectl: interrupted" in text
    assert shards(sb.client)["s1"]["draining"] is True
    assert sb.client.zonectl.locks.find_one({"_id": "apply"}) is None
    assert sb.client.zonectl.journal.count_documents({"type": "apply", "state": "open"}) == 0
    statuses = [
        (e["op"], e["status"])
        for e in sb.client.zonectl.journal.find({"type": "step", "kind": "remove_shard"})
    ]
    assert statuses == [
        ("drain and remove shard s1", "draining started"),
        ("continue draining shard s1", "interrupted (may still run)"),
    ]
    sb.sandbox.balancer.run_until_stable(max_rounds=2000)  # the balancer drains s1 meanwhile
    code, _, out = zonectl("apply", path, "--uri", sb.uri, "--yes")
    assert code == 0, out
    assert "zonectl: shard s1 removed from the cluster" in out
    assert kept(sb.client) == before
