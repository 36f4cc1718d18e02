"""One test per reason code the sandbox can produce: explain's state and code, then the
sandbox's balancer rounds (its own port of MongoDB's policy) bear the state out: moving
moves, stuck / waiting / balanced does not."""

from __future__ import annotations

from typing import Any

import pytest
from bson import MaxKey, MinKey

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


def _failing_rounds(kit: Kit, n: int) -> None:
    """`n` rounds whose migrations all fail at their commit."""
    for _ in range(n):
        kit.sandbox.balancer.run_round()
        kit.sandbox.balancer.complete_migrations()


@pytest.mark.parametrize("version", ["5.0", "7.0"])
def test_a_migration_failing_round_after_round_is_stuck_with_the_servers_message(
    sandbox_server: Any, version: str
) -> None:
    """The donor's failMigrationCommit fail point fails every commit; after three failures
    in a row explain says stuck with the message the donor logged, and it stays put."""
    kit = make_kit(sandbox_server, version)
    kit.collection("t.c", list(range(1, 9)), [S0] * 9, mb=1)
    kit.sandbox.balancer.fail_commit_on.add(S0)
    _failing_rounds(kit, 3)
    doc = kit.explain()
    (coll,) = doc["collections"]
    assert coll["state"] == "stuck"
    first = coll["reasons"][0]
    assert first["code"] == "migration-failing"
    assert "the last 3 migrations of this collection failed" in first["message"]
    assert first["message"].endswith(": Failing _recvChunkCommit due to failpoint.")
    assert [r["code"] for r in coll["reasons"]] == ["migration-failing", "chunks-imbalance"]
    _bears_out(kit, "t.c", "stuck")


def test_one_failed_migration_is_said_and_the_collection_still_moves(
    sandbox_server: Any,
) -> None:
    kit = make_kit(sandbox_server, "7.0")
    kit.collection("t.c", list(range(1, 9)), [S0] * 9, mb=1)
    kit.sandbox.balancer.fail_commit_on.add(S0)
    _failing_rounds(kit, 1)
    kit.sandbox.balancer.fail_commit_on.clear()
    state, codes = kit.states()["t.c"]
    assert (state, codes) == ("moving", ["chunks-imbalance", "migration-failing"])
    _bears_out(kit, "t.c", state)


@pytest.mark.parametrize("version", ["5.0", "7.0"])
def test_a_shard_being_removed_is_drained(sandbox_server: Any, version: str) -> None:
    kit = make_kit(sandbox_server, version)
    kit.collection("t.c", [10, 20, 30], [S0, S1, S1, S2])
    kit.admin.command("movePrimary", "t", to=S0)
    assert kit.admin.command("removeShard", S1)["state"] == "started"
    doc = kit.explain()
    (coll,) = doc["collections"]
    assert (coll["state"], coll["reasons"][0]["code"]) == ("moving", "draining")
    assert (
        "draining shard shard1 holds 2 chunks of this collection" in coll["reasons"][0]["message"]
    )
    _bears_out(kit, "t.c", "moving")
    assert S1 not in kit.placement("t.c")


@pytest.mark.parametrize("version", ["5.0", "7.0"])
def test_a_zone_whose_only_shard_drains_has_no_recipient(sandbox_server: Any, version: str) -> None:
    kit = make_kit(sandbox_server, version)
    kit.admin.command("addShardToZone", S2, zone="hot")
    kit.collection("t.c", [0, 50, 100], [S0, S0, S0, S1])
    kit.zone_range("t.c", 0, 100, "hot")
    kit.cluster.set_shard_field(S2, "draining", True)
    doc = kit.explain()
    (coll,) = doc["collections"]
    assert [r["code"] for r in coll["reasons"]] == ["no-recipient"]
    assert coll["state"] == "stuck"
    assert coll["reasons"][0]["message"].startswith("2 chunks of zone hot: no shard")
    _bears_out(kit, "t.c", "stuck")


def test_a_defragmentation_comes_first(sandbox_server: Any) -> None:
    kit = make_kit(sandbox_server, "7.0")
    kit.collection("t.c", list(range(1, 9)), [S0] * 9, mb=1)
    kit.admin.command("configureCollectionBalancing", "t.c", defragmentCollection=True)
    state, codes = kit.states()["t.c"]
    assert (state, codes[0]) == ("waiting", "defragmenting")
    assert "chunks-imbalance" in codes


def test_a_defragmentation_with_the_balancer_off_is_stuck(sandbox_server: Any) -> None:
    """A defragmentation advances only in the balancer's rounds (balancer.cpp `_mainThread`
    skips the round, the sandbox's run_round too): with the balancer off it is stuck, not
    waiting, whether chunks are to move or not."""
    kit = make_kit(sandbox_server, "7.0")
    kit.collection("t.c", list(range(1, 9)), [S0] * 9, mb=1)
    kit.collection("t.even", [0], [S0, S1], mb=1)
    for ns in ("t.c", "t.even"):
        kit.admin.command("configureCollectionBalancing", ns, defragmentCollection=True)
    kit.admin.command("balancerStop")
    states = kit.states()
    assert states["t.c"] == ("stuck", ["balancer-off", "defragmenting", "chunks-imbalance"])
    assert states["t.even"][0] == "stuck"
    assert states["t.even"][1][:2] == ["balancer-off", "defragmenting"]
    _bears_out(kit, "t.c", "stuck")
    assert kit.states()["t.c"][1][:2] == ["balancer-off", "defragmenting"]  # still there


def test_a_resharding_in_flight_is_ddl_in_progress_not_an_error(sandbox_server: Any) -> None:
    from zonectl.sandbox.balancer import resharding

    kit = make_kit(sandbox_server, "8.0")
    kit.collection("t.c", list(range(1, 9)), [S0] * 9, mb=1)
    resharding.start(kit.cluster, "t.c", {"y": 1}, None, None, lambda shard: 1e6)
    doc = kit.explain()
    (coll,) = doc["collections"]
    assert coll["state"] == "waiting"
    first = coll["reasons"][0]
    assert first["code"] == "ddl-in-progress"
    assert first["message"].startswith("a reshardCollection (state cloning) holds the collection")
    assert "migrations-not-allowed" not in [r["code"] for r in coll["reasons"]]
    _bears_out(kit, "t.c", "waiting")


@pytest.mark.parametrize("version", ["5.0", "7.0"])
def test_balancing_off_and_migrations_not_allowed_are_stuck(
    sandbox_server: Any, version: str
) -> None:
    kit = make_kit(sandbox_server, version)
    kit.collection("t.off", list(range(1, 9)), [S0] * 9, mb=1)
    kit.collection("t.frozen", list(range(1, 9)), [S0] * 9, mb=1)
    kit.admin.command("balancerStart")
    kit.handle.client.config.collections.update_one({"_id": "t.off"}, {"$set": {"noBalance": True}})
    kit.admin.command("setAllowMigrations", "t.frozen", allowMigrations=False)
    states = kit.states()
    assert states["t.off"][0] == states["t.frozen"][0] == "stuck"
    assert states["t.off"][1][0] == "collection-balancing-off"
    assert states["t.frozen"][1][0] == "migrations-not-allowed"
    _bears_out(kit, "t.off", "stuck")
    _bears_out(kit, "t.frozen", "stuck")


def test_day_of_week_windows_say_which_day_the_window_opens(sandbox_server: Any) -> None:
    """8.3's activeWindowDOW: only Tuesday's 01:00-02:00 entry, on a Monday noon."""
    kit = make_kit(sandbox_server, "8.3")
    kit.collection("t.c", list(range(1, 9)), [S0] * 9, mb=1)
    kit.setting("balancer", activeWindowDOW=[{"day": "Tuesday", "start": "01:00", "stop": "02:00"}])
    doc = kit.explain()
    (coll,) = doc["collections"]
    assert coll["state"] == "waiting"
    assert coll["reasons"][0]["code"] == "outside-window"
    assert "it opens at 2026-03-03T01:00:00Z (in 13h00m)" in coll["reasons"][0]["message"]
    _bears_out(kit, "t.c", "waiting")


@pytest.mark.parametrize(("version", "state"), [("6.0.2", "moving"), ("6.0.3", "balanced")])
def test_three_small_chunks_move_by_counts_before_6_0_3_and_not_by_size_after(
    sandbox_server: Any, version: str, state: str
) -> None:
    kit = make_kit(sandbox_server, version)
    kit.collection("t.c", [10, 20], [S0, S0, S0])
    found, codes = kit.states()["t.c"]
    assert (found, codes) == (
        state,
        ["chunks-imbalance" if state == "moving" else "below-threshold"],
    )
    _bears_out(kit, "t.c", state)


@pytest.mark.parametrize("version", ["5.0", "7.0"])
def test_a_chunk_imbalance_is_the_balancers_to_fix_not_apply_migrate(
    sandbox_server: Any, version: str
) -> None:
    """`apply --migrate` moves only chunks out of their zone (apply --help): an imbalance
    with no zone is the balancer's alone, so the fix must not send the user to it."""
    kit = make_kit(sandbox_server, version)
    kit.collection("t.c", list(range(10, 80, 10)), [S0] * 8, mb=4)
    (coll,) = kit.explain("-n", "t.c")["collections"]
    assert (coll["state"], coll["reasons"][0]["code"]) == ("moving", "chunks-imbalance")
    assert "apply --migrate" not in coll["reasons"][0]["fix"]
    assert "the balancer moves it" in coll["reasons"][0]["fix"]
    _bears_out(kit, "t.c", "moving")


def test_below_threshold_where_the_donor_holds_none_of_the_bucket_offers_no_chunk_size(
    sandbox_server: Any,
) -> None:
    """6.0.3+: the donor is the shard with the most data over every zone (balancer_policy.cpp
    `_getMostOverloadedShard`), and the threshold is checked before its chunks are: a
    collection wholly in a zone compares its zone's shard with a zoneless one, below the
    threshold, though no chunk of the no-zone bucket exists to move at any chunk size."""
    kit = make_kit(sandbox_server, "7.0")
    for shard in (S0, S1):
        kit.admin.command("addShardToZone", shard, zone="logs")
    kit.collection("t.logs", [0], [S0, S1])
    kit.admin.command(
        "updateZoneKeyRange", "t.logs", min={"x": MinKey()}, max={"x": MaxKey()}, zone="logs"
    )
    (coll,) = kit.explain("-n", "t.logs")["collections"]
    assert coll["state"] == "balanced"
    (reason,) = coll["reasons"]
    assert reason["code"] == "below-threshold" and f"{S2} 0.0 MiB (no zone)" in reason["message"]
    assert "holds no chunk of no zone, so none would move at any size" in reason["message"]
    assert reason["fix"] == "nothing to do: no chunk size makes the balancer move one here"
    _bears_out(kit, "t.logs", "balanced")
