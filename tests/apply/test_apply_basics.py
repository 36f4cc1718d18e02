"""apply end to end against a sandbox over TCP: convergence, prior balancing states kept,
idempotency, confirmation, dry run, stale saved plans."""

from __future__ import annotations

from apply_kit import MATRIX, Cluster, zonectl


def test_apply_converges_and_a_follow_up_plan_is_empty(cluster: Cluster) -> None:
    result = zonectl("apply", str(MATRIX), "--uri", cluster.uri, "--yes")
    assert result.code == 0, result.err
    assert "applied plan" in result.err
    follow = zonectl("plan", str(MATRIX), "--uri", cluster.uri, "--detailed-exitcode")
    assert follow.code == 0, follow.out + follow.err
    assert cluster.lease() is None
    assert cluster.open_journals() == []
