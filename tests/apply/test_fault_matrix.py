"""The fault matrix (ARCHITECTURE.md, "Targets"): for an apply touching zones, ranges of two
namespaces, a collection's balancing and the balancer window, every state-changing command
in turn gets an error code, a closed connection, or the zonectl process SIGKILLed while it
waits for that command. One more `apply` (or `recover` then `apply`) must then reach the
desired state with balancing as it was, no lease held and no journal open."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from apply_kit import CLUSTER, MATRIX, Cluster, Make, Tap, spawn, zonectl

from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

STATE_CHANGING = {
    "findAndModify",
    "update",
    "insert",
    "delete",
    "addShardToZone",
    "removeShardFromZone",
    "updateZoneKeyRange",
    "balancerStart",
    "balancerStop",
}
ERROR_CODE = 8  # UnknownError: not retryable by pymongo, so the run sees it
KILL_BLOCK_MS = 3000


@functools.cache
def reference() -> tuple[tuple[tuple[str, str, int], ...], dict[str, Any]]:
    """The state-changing commands of a clean apply, each as (name, namespace, nth), and the
    state it ends in (what every faulted case must reach)."""
    sb = Sandbox("7.0")
    seed.seed(sb, seed.load(CLUSTER), str(CLUSTER))
    server = serve(sb)
    try:
        tap = Tap(sb)
        result = zonectl("apply", str(MATRIX), "--uri", server.uri, "--yes")
        assert result.code == 0, result.err
        steps: list[tuple[str, str, int]] = []
        for i, (name, ns) in enumerate(tap.seen):
            if name in STATE_CHANGING:
                steps.append((name, ns, tap.seen[: i + 1].count((name, ns))))
        import pymongo

        client: Any = pymongo.MongoClient(server.uri, tz_aware=True)
        end = Cluster(sb, server.uri, client, tap, None).state()
        client.close()
        return tuple(steps), end
    finally:
        server.close()


STEPS = reference()[0]
IDS = [f"{k:02d}-{name}-{ns}#{nth}" for k, (name, ns, nth) in enumerate(STEPS, 1)]


def assert_converged(cluster: Cluster) -> None:
    again = zonectl("apply", str(MATRIX), "--uri", cluster.uri, "--yes")
    assert again.code == 0, again.err
    follow = zonectl("plan", str(MATRIX), "--uri", cluster.uri, "--detailed-exitcode")
    assert follow.code == 0, follow.out
    # Desired zones/ranges/window, app.users' managed switch, and everything else as before:
    # app.events back to balancing, app.logs keeps the noBalance someone else set.
    assert cluster.state() == reference()[1]
    assert cluster.lease() is None
    assert cluster.open_journals() == []


def test_the_matrix_covers_every_kind_of_step() -> None:
    names = {name for name, _, _ in STEPS}
    assert {"addShardToZone", "removeShardFromZone", "updateZoneKeyRange"} <= names
    assert ("update", "config.collections", 3) in STEPS  # pause, restore, balancing: false
    assert ("update", "config.settings", 1) in STEPS
    assert len(STEPS) >= 30


@pytest.mark.parametrize("step", STEPS, ids=IDS)
@pytest.mark.parametrize("fault", ["error", "close"])
def test_apply_recovers_from_a_failed_command(
    cluster: Cluster, step: tuple[str, str, int], fault: str
) -> None:
    name, ns, nth = step
    data: dict[str, Any] = (
        {"errorCode": ERROR_CODE} if fault == "error" else {"closeConnection": True}
    )
    cluster.tap.arm(name, ns, nth, **data)
    first = zonectl("apply", str(MATRIX), "--uri", cluster.uri, "--yes")
    assert cluster.tap.fired.is_set()
    assert first.code in (0, 1), first.err
    assert "internal error" not in first.err
    if first.code == 1:
        assert "zonectl: error:" in first.err
    assert_converged(cluster)


@pytest.mark.parametrize("step", STEPS, ids=IDS)
def test_apply_recovers_after_zonectl_is_killed(
    make_cluster: Make, step: tuple[str, str, int]
) -> None:
    cluster = make_cluster()
    name, ns, nth = step
    # The command blocks, then the connection closes without running it: the process is
    # killed while it waits, i.e. right after the step before.
    cluster.tap.arm(
        name, ns, nth, blockConnection=True, blockTimeMS=KILL_BLOCK_MS, closeConnection=True
    )
    proc = spawn("apply", str(MATRIX), "--uri", cluster.uri, "--yes")
    try:
        assert cluster.tap.fired.wait(60), proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.communicate()
    if STEPS.index(step) % 2:
        # Half the cases clean up with `recover` first: balancing as before, lease free.
        rec = zonectl("recover", "--uri", cluster.uri)
        assert rec.code == 0, rec.err
        assert cluster.lease() is None
        assert cluster.open_journals() == []
        state = cluster.state()["noBalance"]
        assert state["app.events"] is False and state["app.logs"] is True
    assert_converged(cluster)
