"""Issue 41's "done when": one sandbox holding at once a zone violation, a chunk imbalance,
a noBalance collection, jumbo chunks outside their zone, migrations not allowed and three
small chunks on one of three shards. explain's prediction, with the balancer off, its window
closed and open, is then borne out by the sandbox's own balancer (its port of MongoDB's
policy, which explain shares nothing with): what explain calls moving moves, what it calls
stuck, waiting or balanced does not. On 5.0 the balancer counts chunks (three chunks on one
shard of three are an imbalance); from 6.0.3 it weighs bytes (1.5 MiB is below 3 x 1 MiB)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.explain.kit import SHARDS, Kit, make_kit

# 5.0: chunk counts; 7.0: data size.
SMALL = {"5.0": ("moving", ["chunks-imbalance"]), "7.0": ("balanced", ["below-threshold"])}


def _scenario(sandbox_server: Any, version: str) -> Kit:
    kit = make_kit(sandbox_server, version)
    kit.admin.command("addShardToZone", "shard2", zone="hot")
    s0, s1, _ = SHARDS
    # Zone violation: [0, 50) and [50, 100) belong to hot (shard2) but sit on shard0.
    kit.collection("t.violation", [0, 50, 100], [s0, s0, s0, s1])
    kit.zone_range("t.violation", 0, 100, "hot")
    # Imbalance: nine 1 MiB chunks on shard0 (9 MiB against a 3 MiB threshold).
    kit.collection("t.imbalance", list(range(1, 9)), [s0] * 9, mb=1)
    # The same, with balancing off for the collection.
    kit.collection("t.nobalance", list(range(1, 9)), [s0] * 9, mb=1)
    kit.handle.client.config.collections.update_one(
        {"_id": "t.nobalance"}, {"$set": {"noBalance": True}}
    )
    # The same, with migrations not allowed.
    kit.collection("t.frozen", list(range(1, 9)), [s0] * 9, mb=1)
    kit.admin.command("setAllowMigrations", "t.frozen", allowMigrations=False)
    # Jumbo: its only chunk of hot is flagged jumbo and sits on shard0.
    kit.collection("t.jumbo", [0, 100], [s0, s0, s1])
    kit.zone_range("t.jumbo", 0, 100, "hot")
    kit.jumbo("t.jumbo", 1)
    # Three small chunks (0.5 MiB each) on shard0.
    kit.collection("t.small", [10, 20], [s0, s0, s0])
    return kit


def _check_rounds(kit: Kit, states: dict[str, tuple[str, list[str]]]) -> None:
    """Run the sandbox's balancer; moving ones moved, the others did not."""
    before = kit.placements()
    kit.rounds()
    after = kit.placements()
    for ns, (state, codes) in states.items():
        moved = before[ns] != after[ns]
        assert moved == (state == "moving"), (ns, state, codes, before[ns], after[ns])


@pytest.mark.parametrize("version", ["5.0", "7.0"])
def test_with_the_balancer_off_explain_says_stuck_and_nothing_moves(
    sandbox_server: Any, version: str
) -> None:
    kit = _scenario(sandbox_server, version)
    kit.admin.command("balancerStop")
    states = kit.states()
    assert states["t.violation"] == ("stuck", ["balancer-off", "zone-violation"])
    assert states["t.imbalance"] == ("stuck", ["balancer-off", "chunks-imbalance"])
    assert states["t.nobalance"] == ("stuck", ["collection-balancing-off", "chunks-imbalance"])
    assert states["t.frozen"] == ("stuck", ["migrations-not-allowed", "chunks-imbalance"])
    assert states["t.jumbo"] == ("stuck", ["jumbo"])
    small = ("stuck", ["balancer-off", "chunks-imbalance"]) if version == "5.0" else SMALL[version]
    assert states["t.small"] == small
    _check_rounds(kit, states)


@pytest.mark.parametrize("version", ["5.0", "7.0"])
def test_with_the_window_closed_explain_says_waiting_and_when_it_opens(
    sandbox_server: Any, version: str
) -> None:
    kit = _scenario(sandbox_server, version)
    kit.setting("balancer", activeWindow={"start": "23:00", "stop": "23:30"})
    doc = kit.explain()
    by_ns = {c["ns"]: c for c in doc["collections"]}
    violation = by_ns["t.violation"]
    assert violation["state"] == "waiting"
    first = violation["reasons"][0]
    assert first["code"] == "outside-window"
    assert "window 23:00-23:30 (UTC) is closed" in first["message"]
    assert "it opens at 2026-03-02T23:00:00Z (in 11h00m)" in first["message"]
    assert violation["eta"] is not None and violation["eta"] > "2026-03-02T23:00:00Z"
    assert by_ns["t.imbalance"]["state"] == "waiting"
    states = kit.states()
    assert states["t.jumbo"] == ("stuck", ["jumbo"])
    assert states["t.nobalance"][0] == states["t.frozen"][0] == "stuck"
    _check_rounds(kit, states)


@pytest.mark.parametrize("version", ["5.0", "7.0"])
def test_with_the_window_open_each_collection_gets_its_state_and_the_rounds_bear_it_out(
    sandbox_server: Any, version: str
) -> None:
    kit = _scenario(sandbox_server, version)
    kit.setting("balancer", activeWindow={"start": "11:00", "stop": "13:00"})
    doc = kit.explain()
    states = {c["ns"]: (c["state"], [r["code"] for r in c["reasons"]]) for c in doc["collections"]}
    assert states == {
        "t.violation": ("moving", ["zone-violation"]),
        "t.imbalance": ("moving", ["chunks-imbalance"]),
        "t.nobalance": ("stuck", ["collection-balancing-off", "chunks-imbalance"]),
        "t.frozen": ("stuck", ["migrations-not-allowed", "chunks-imbalance"]),
        "t.jumbo": ("stuck", ["jumbo"]),
        "t.small": SMALL[version],
    }
    violation = next(c for c in doc["collections"] if c["ns"] == "t.violation")
    assert violation["eta"] is not None and violation["eta"] >= "2026-03-02T12:00:00Z"
    _check_rounds(kit, states)
    after = kit.states()
    assert after["t.violation"][0] == "balanced"
