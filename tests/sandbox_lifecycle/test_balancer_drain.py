"""The balancer draining a shard (ports the draining step of BalancerPolicy::balance,
src/mongo/db/s/balancer/balancer_policy.cpp, and jstests/sharding/remove_shard*.js)."""

from __future__ import annotations

from typing import Any

import pytest
from pymongo.errors import OperationFailure


@pytest.mark.parametrize("version", ["5.0", "7.0", "8.3"])
def test_one_migration_at_a_time_off_the_draining_shard(make_cluster: Any, version: str) -> None:
    c = make_cluster(version, shards=4, placement=["shard0"] * 8)
    c.admin.command("removeShard", "shard0")
    c.admin.command("removeShard", "shard1")  # shard2 and shard3 stay
    for _ in range(20):
        result = c.balancer.run_round()
        donors = [m.donor for m in result.migrations]
        assert donors.count("shard0") <= 1
        assert not {m.recipient for m in result.migrations} & {"shard0", "shard1"}
        c.balancer.complete_migrations()
    assert c.counts()["shard0"] == 0 and c.counts()["shard1"] == 0


def test_a_zoned_chunk_goes_to_a_non_draining_shard_of_its_zone(make_cluster: Any) -> None:
    c = make_cluster("7.0", shards=4, placement=["shard0"] * 4)
    for shard in ("shard0", "shard1", "shard3"):
        c.admin.command("addShardToZone", shard, zone="z")
    c.admin.command("updateZoneKeyRange", "db.c", min={"x": 1}, max={"x": 3}, zone="z")
    c.admin.command("removeShard", "shard1")  # drains, and is of the zone
    c.admin.command("removeShard", "shard0")
    c.balancer.run_until_stable()
    store = c.sandbox.cluster.chunks("db.c")
    zoned = [
        c.sandbox.cluster.zone_for_range("db.c", store.min_at(i), store.max_at(i)) == "z"
        for i in range(len(store))
    ]
    on = [store.shard_at(i) for i in range(len(store))]
    assert {s for s, z in zip(on, zoned, strict=True) if z} == {"shard3"}
    assert {s for s, z in zip(on, zoned, strict=True) if not z} <= {"shard2", "shard3"}


def test_jumbo_chunks_stay_on_a_draining_shard_even_with_attempt_to_balance_jumbo(
    make_cluster: Any,
) -> None:
    """balancer_policy.cpp's draining step skips jumbo chunks whatever
    attemptToBalanceJumboChunks says (SERVER-86055 asks otherwise, open); removeShard keeps
    counting them."""
    c = make_cluster("7.0", shards=2, placement=["shard1"] * 3)
    c.sandbox.cluster.chunks("db.c").set_jumbo(1, True)
    c.set_setting("balancer", attemptToBalanceJumboChunks=True)
    c.admin.command("removeShard", "shard1")
    c.balancer.run_until_stable()
    assert c.counts() == {"shard0": 2, "shard1": 1}
    remaining = c.admin.command("removeShard", "shard1")["remaining"]
    assert (remaining["chunks"], remaining["jumboChunks"]) == (1, 1)
    # The operator's way out: moveRange with forceJumbo (6.0+ has no draining check).
    c.admin.command("moveRange", "db.c", min={"x": 1}, toShard="shard0", forceJumbo=True)
    assert c.counts() == {"shard0": 3, "shard1": 0}


def test_nothing_drains_while_the_balancer_is_off_or_outside_its_window(make_cluster: Any) -> None:
    c = make_cluster("7.0", shards=2, placement=["shard1"] * 3)
    c.admin.command("removeShard", "shard1")
    c.set_setting("balancer", mode="off", stopped=True)
    assert c.balancer.run_round().skipped == "off"
    c.set_setting(
        "balancer", mode="full", stopped=False, activeWindow={"start": "01:00", "stop": "02:00"}
    )
    assert c.balancer.run_round().skipped == "window"  # the clock is at noon
    assert c.counts() == {"shard0": 0, "shard1": 3}


def test_a_manual_move_to_a_draining_shard_per_version(make_cluster: Any) -> None:
    """5.0's moveChunk runs checkMoveAllowed (isShardSuitableReceiver); 6.0+ moveRange has no
    such check (SERVER-81352)."""
    old = make_cluster("5.0", shards=3, placement=["shard0"] * 2)
    old.admin.command("removeShard", "shard2")
    with pytest.raises(OperationFailure) as info:
        old.admin.command("moveChunk", "db.c", find={"x": 0}, to="shard2")
    assert "shard2 is currently draining." in str(info.value)
    new = make_cluster("7.0", shards=3, placement=["shard0"] * 2)
    new.admin.command("removeShard", "shard2")
    new.admin.command("moveRange", "db.c", min={"x": 1}, toShard="shard2")
    assert new.counts()["shard2"] == 1
