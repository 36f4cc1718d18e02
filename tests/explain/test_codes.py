"""One test per reason code the sandbox can produce: explain's state and code, then the
sandbox's balancer rounds (its own port of MongoDB's policy) bear the state out: moving
moves, stuck / waiting / balanced does not."""

from __future__ import annotations

from typing import Any

import pytest

from tests.explain.kit import SHARDS, Kit, make_kit

S0, S1, S2 = SHARDS


def _bears_out(kit: Kit, ns: str, state: str) -> None:
    before = kit.placement(ns)
    kit.rounds()
    assert (kit.placement(ns) != before) == (state == "moving"), (ns, state)


@pytest.mark.parametrize("version", ["5.0", "7.0"])
def test_jumbo_chunks_outside_their_zone_stay_even_with_attempt_to_balance_jumbo_chunks(
    sandbox_server: Any, version: str
) -> None:
    """balancer_policy.cpp step 2 skips a chunk flagged jumbo (log 21891) before it looks at
    forceJumbo, in every release read (5.0 to 8.x): attemptToBalanceJumboChunks only lets a
    chunk not yet flagged move past ChunkTooBig. The sandbox moved flagged chunks with it on;
    explain said stuck, and MongoDB's source sides with explain."""
    kit = make_kit(sandbox_server, version)
    kit.admin.command("addShardToZone", S2, zone="hot")
    kit.collection("t.jumbo", [0, 100], [S0, S0, S1])
    kit.zone_range("t.jumbo", 0, 100, "hot")
    kit.jumbo("t.jumbo", 1)
    kit.setting("balancer", attemptToBalanceJumboChunks=True)
    state, codes = kit.states()["t.jumbo"]
    assert (state, codes) == ("stuck", ["jumbo"])
    _bears_out(kit, "t.jumbo", state)
