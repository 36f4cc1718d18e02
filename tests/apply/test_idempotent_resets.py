"""A connection reset on an idempotent admin command (zone memberships and ranges, the
balancer switch, balancing and setting writes: Op.idempotent) sends it again instead of
ending the run; a reset on any other command (a split) still ends it, outcome unknown,
with balancing restored. The resets come from a TCP proxy in front of the sandbox
(zonectl/sandbox/wire/reset_proxy.py): the server runs the whole command, the client's
connection dies before the reply."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from apply_kit import CLUSTER, MATRIX, MIGRATE, Cluster, Make, zonectl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox
from zonectl.sandbox.wire.reset_proxy import ResetProxy

RESENT = "the connection reset before its answer; sent again (the command is idempotent"


@pytest.fixture
def proxied(make_cluster: Make) -> Iterator[Any]:
    proxies: list[ResetProxy] = []

    def make() -> tuple[Cluster, ResetProxy]:
        cluster = make_cluster()
        p = ResetProxy(("127.0.0.1", cluster.handle.port)).__enter__()
        proxies.append(p)
        return cluster, p

    yield make
    for p in proxies:
        p.__exit__(None, None, None)


def _clean(cluster: Cluster) -> None:
    """No lease held, no journal open, balancing as it was before the run."""
    assert cluster.lease() is None
    assert cluster.open_journals() == []
    no_balance = cluster.state()["noBalance"]
    assert no_balance["app.events"] is False and no_balance["app.logs"] is True
    assert cluster.client.config.settings.find_one({"_id": "balancer"}).get("stopped") is False


def _converged(cluster: Cluster, policy: str) -> None:
    follow = zonectl("plan", policy, "--uri", cluster.uri, "--detailed-exitcode")
    assert follow.code == 0, follow.out
    _clean(cluster)


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    command=st.sampled_from(["addShardToZone", "removeShardFromZone", "updateZoneKeyRange"]),
    data=st.data(),
    reply_bytes=st.integers(0, 60),
)
def test_an_idempotent_command_whose_reply_is_lost_is_sent_again(
    proxied: Any, command: str, data: st.DataObject, reply_bytes: int
) -> None:
    """Whichever zone command of the run loses its reply (it ran on the server), and however
    much of the reply got through, it is sent again and the run converges."""
    clean = make_reference()
    nth = data.draw(st.integers(1, clean[command]), label="nth")
    cluster, p = proxied()
    fired = p.cut(command, nth, reply_bytes=reply_bytes)
    result = zonectl("apply", str(MATRIX), "--uri", p.uri, "--yes")
    assert fired.is_set()
    assert result.code == 0, result.err
    assert RESENT in result.err
    assert "1 connection reset (1 command re-sent)" in result.err
    assert p.commands[command] == clean[command] + 1  # sent twice, once on the dead link
    _converged(cluster, str(MATRIX))


def test_zonectls_own_writes_are_retried_by_pymongo(proxied: Any) -> None:
    """The lease (find_one_and_update) and the journal are retryable writes: pymongo sends
    them again itself (retryWrites), so apply never sees their reset."""
    clean = make_reference()
    cluster, p = proxied()
    fired = p.cut("findAndModify", 1)  # taking the lease
    result = zonectl("apply", str(MATRIX), "--uri", p.uri, "--yes")
    assert fired.is_set()
    assert result.code == 0, result.err
    assert "connection reset" not in result.err
    assert p.commands["findAndModify"] == clean["findAndModify"] + 1
    _converged(cluster, str(MATRIX))


_REFERENCE: dict[str, int] = {}


def make_reference() -> dict[str, int]:
    """The commands a clean apply of the matrix policy sends, through a proxy that cuts
    nothing (computed once)."""
    if not _REFERENCE:
        sb = Sandbox("7.0")
        seed.seed(sb, seed.load(CLUSTER), str(CLUSTER))
        server = serve(sb)
        try:
            with ResetProxy(("127.0.0.1", server.port)) as p:
                result = zonectl("apply", str(MATRIX), "--uri", p.uri, "--yes")
                assert result.code == 0, result.err
                _REFERENCE.update(p.commands)
        finally:
            server.close()
    return _REFERENCE


def test_a_split_whose_reply_is_lost_still_ends_the_run_with_balancing_restored(
    proxied: Any,
) -> None:
    cluster, p = proxied()
    fired = p.cut("split", 1)
    result = zonectl("apply", str(MIGRATE), "--uri", p.uri, "--yes", "--migrate")
    assert fired.is_set()
    assert result.code == 1, result.err
    assert "the connection failed, the outcome is unknown" in result.err
    assert RESENT not in result.err
    assert p.commands["split"] == 1  # never sent a second time
    _clean(cluster)
    again = zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes", "--migrate")
    assert again.code == 0, again.err
    _converged(cluster, str(MIGRATE))


@pytest.mark.parametrize("command", ["balancerStop", "balancerStart"])
def test_a_reset_on_the_balancer_pause_or_restore_is_sent_again(proxied: Any, command: str) -> None:
    cluster, p = proxied()
    fired = p.cut(command, 1)
    result = zonectl(
        "apply", str(MIGRATE), "--uri", p.uri, "--yes", "--migrate", "--pause", "cluster"
    )
    assert fired.is_set()
    assert result.code == 0, result.err
    assert f"{command}: {RESENT}" in result.err
    assert "1 connection reset (1 command re-sent)" in result.err
    assert p.commands[command] == 2
    _converged(cluster, str(MIGRATE))
