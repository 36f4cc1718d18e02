"""8.3's startShardDraining / shardDrainingStatus / commitShardRemoval / stopShardDraining and
transitionToDedicatedConfigServer (ports jstests/sharding/shard_draining_status.js and the
configsvr_*_shard_draining_command.cpp checks)."""

from __future__ import annotations

from typing import Any

import pytest
from pymongo.errors import OperationFailure


def fails(call: Any, code: int) -> str:
    with pytest.raises(OperationFailure) as info:
        call()
    assert info.value.code == code, info.value.details
    return str(info.value.details["errmsg"])


def test_shard_draining_status_reports_then_commit_removes(make_cluster: Any) -> None:
    c = make_cluster("8.3", placement=["shard1"] * 3)
    c.client["db"]["unsharded"].insert_one({"_id": 1})  # on db's primary, shard1
    assert set(c.admin.command("startShardDraining", "shard1")) <= {
        "ok",
        "$clusterTime",
        "operationTime",
    }
    status = c.admin.command("shardDrainingStatus", "shard1")
    assert (status["state"], status["msg"]) == ("ongoing", "draining ongoing")
    assert status["dbsToMove"] == ["db"] and status["collectionsToMove"] == ["db.unsharded"]
    assert status["note"] == (
        "you need to call moveCollection for collectionsToMove and afterwards movePrimary for "
        "the dbsToMove"
    )
    assert status["remaining"]["collectionsToMove"] == 1
    assert status["remaining"]["estimatedRemainingBytes"] > 0
    # "status not returned for non-draining shard" / "... for non existent shard"
    message = fails(lambda: c.admin.command("shardDrainingStatus", "shard0"), 20)
    assert message == "The shard shard0 isn't draining"
    assert fails(lambda: c.admin.command("shardDrainingStatus", "nope"), 70) == (
        "Shard nope not found"
    )
    message = fails(lambda: c.admin.command("commitShardRemoval", "shard1"), 20)
    assert message == (
        "The shard shard1 isn't completely drained. Please use the shardDrainingStatus "
        "command to check the draining status"
    )
    c.balancer.run_until_stable()
    c.admin.command("movePrimary", "db", to="shard0")
    done = c.admin.command("shardDrainingStatus", "shard1")
    assert (done["state"], done["msg"]) == ("drainingComplete", "draining completed successfully")
    assert c.shard("shard1") is not None  # read-only: nothing removed yet
    c.admin.command("commitShardRemoval", "shard1")
    assert c.shard("shard1") is None


def test_commit_of_a_shard_not_draining_conflicts(make_cluster: Any) -> None:
    c = make_cluster("8.3")
    message = fails(lambda: c.admin.command("commitShardRemoval", "shard2"), 117)
    assert message == "Shard shard2 is not currently draining"


def test_stop_shard_draining_makes_the_shard_a_recipient_again(make_cluster: Any) -> None:
    c = make_cluster("8.3", shards=2, placement=["shard0"] * 8)
    c.admin.command("startShardDraining", "shard1")
    c.balancer.run_until_stable()
    assert c.counts() == {"shard0": 8, "shard1": 0}  # a draining shard receives nothing
    c.admin.command("stopShardDraining", "shard1")
    assert "draining" not in c.shard("shard1")
    c.admin.command("stopShardDraining", "shard1")  # not draining: a no-op
    c.balancer.run_until_stable()
    assert c.counts()["shard1"] > 0
    whats = [d["what"] for d in c.client.config.changelog.find({"details.shard": "shard1"})]
    assert whats == ["removeShard.start", "removeShard.stopShardDraining"]


def test_start_shard_draining_refuses_the_last_shard(make_cluster: Any) -> None:
    c = make_cluster("8.3", shards=2, placement=["shard0"])
    c.admin.command("startShardDraining", "shard1")
    c.admin.command("startShardDraining", "shard1")  # already draining: ok
    message = fails(lambda: c.admin.command("startShardDraining", "shard0"), 20)
    assert message == "Operation not allowed because it would drain the last shard"


@pytest.mark.parametrize("version", ["5.0", "7.0", "8.0"])
def test_draining_commands_do_not_exist_before_8_3(make_cluster: Any, version: str) -> None:
    c = make_cluster(version)
    for name in ("startShardDraining", "shardDrainingStatus", "commitShardRemoval"):
        fails(lambda name=name: c.admin.command(name, "shard1"), 59)
    fails(lambda: c.admin.command("stopShardDraining", "shard1"), 59)


@pytest.mark.parametrize(
    ("version", "code", "message"),
    [
        ("6.0", 59, None),
        ("7.0", 7368401, "The transition to config shard feature is disabled"),
        ("8.0", 70, "Shard config does not exist"),
        ("8.3", 70, "Shard config does not exist"),
    ],
)
def test_transition_to_dedicated_config_server_without_a_config_shard(
    make_cluster: Any, version: str, code: int, message: str | None
) -> None:
    c = make_cluster(version)
    got = fails(lambda: c.admin.command("transitionToDedicatedConfigServer", 1), code)
    if message is not None:
        assert got == message
