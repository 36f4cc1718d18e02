"""balancerCollectionStatus and configureCollectionBalancing (reference §3.3, §3.4, §7.8)."""

from __future__ import annotations

from typing import Any

import pytest
from pymongo.errors import OperationFailure

VERSIONS = ("5.0", "6.0", "7.0", "8.0")


def _code(c: Any, **cmd: Any) -> int:
    with pytest.raises(OperationFailure) as err:
        c.admin.command(cmd)
    return int(err.value.code or 0)


@pytest.mark.parametrize("version", VERSIONS)
def test_status_validations(make_cluster: Any, version: str) -> None:
    """jstests/sharding/balancer_collection_status.js (4.4/5.0) and the 6.0+ wording."""
    c = make_cluster(version)
    assert _code(c, balancerCollectionStatus="db") == 73
    unknown_db = _code(c, balancerCollectionStatus="nodb.col")
    assert unknown_db == (26 if version == "5.0" else 118)
    c.sandbox.cluster.ensure_database("db")
    assert _code(c, balancerCollectionStatus="db.col2") == 118


@pytest.mark.parametrize("version", VERSIONS)
def test_a_new_collection_is_compliant_and_reports_chunk_size_from_6_0(
    make_cluster: Any, version: str
) -> None:
    c = make_cluster(version)
    status = c.admin.command("balancerCollectionStatus", "db.c")
    assert status["balancerCompliant"] is True
    assert "firstComplianceViolation" not in status
    assert ("chunkSize" in status) == (version != "5.0")
    if version != "5.0":
        assert status["chunkSize"] == 1


def test_three_chunks_on_one_shard_are_a_chunks_imbalance_until_balanced(
    make_cluster: Any,
) -> None:
    c = make_cluster("5.0", points=[10, 20])
    status = c.admin.command("balancerCollectionStatus", "db.c")
    assert status == {**status, "balancerCompliant": False}
    assert status["firstComplianceViolation"] == "chunksImbalance"
    for _ in range(3):
        c.balancer.run_round()
        c.balancer.complete_migrations()
    assert c.admin.command("balancerCollectionStatus", "db.c")["balancerCompliant"] is True


@pytest.mark.parametrize("version", VERSIONS)
def test_a_chunk_outside_its_zone_is_a_zone_violation_until_moved(
    make_cluster: Any, version: str
) -> None:
    c = make_cluster(version, points=[10, 20], placement=["shard0", "shard0", "shard1"])
    c.zone("shard1", "z")
    c.zone_range({"x": 10}, {"x": 20}, "z")
    status = c.admin.command("balancerCollectionStatus", "db.c")
    assert status["firstComplianceViolation"] == "zoneViolation"  # [10, 20) on shard0
    c.balancer.run_until_stable()
    assert c.admin.command("balancerCollectionStatus", "db.c")["balancerCompliant"] is True
    c.zone("shard2", "y")
    c.zone_range({"x": 30}, {"x": 40}, "y")
    status = c.admin.command("balancerCollectionStatus", "db.c")
    assert status["firstComplianceViolation"] == "zoneViolation"  # [20, MaxKey) straddles
    c.balancer.run_round()  # splits at 30 and 40 and starts moving [30, 40)
    c.balancer.complete_migrations()
    assert c.admin.command("balancerCollectionStatus", "db.c")["balancerCompliant"] is True


def test_a_draining_shard_is_reported(make_cluster: Any) -> None:
    c = make_cluster("5.0", points=[10], placement=["shard0", "shard1"])
    c.sandbox.cluster.set_shard_field("shard1", "draining", True)
    status = c.admin.command("balancerCollectionStatus", "db.c")
    assert status["firstComplianceViolation"] == "draining"


def test_configure_collection_balancing_is_not_a_command_on_5_0(make_cluster: Any) -> None:
    c = make_cluster("5.0")
    assert _code(c, configureCollectionBalancing="db.c", chunkSize=10) == 59


@pytest.mark.parametrize("version", ["6.0", "7.0", "8.0"])
def test_configure_collection_balancing_writes_max_chunk_size(
    make_cluster: Any, version: str
) -> None:
    c = make_cluster(version)
    c.admin.command("configureCollectionBalancing", "db.c", chunkSize=10)
    doc = c.client.config.collections.find_one({"_id": "db.c"})
    assert doc["maxChunkSizeBytes"] == 10 * 1024 * 1024
    assert c.admin.command("balancerCollectionStatus", "db.c")["chunkSize"] == 10
    c.admin.command("configureCollectionBalancing", "db.c", chunkSize=0)
    assert "maxChunkSizeBytes" not in c.client.config.collections.find_one({"_id": "db.c"})


@pytest.mark.parametrize("size", [-1, 1025, 2048])
def test_configure_collection_balancing_rejects_chunk_sizes_out_of_range(
    make_cluster: Any, size: int
) -> None:
    c = make_cluster("7.0")
    with pytest.raises(OperationFailure) as err:
        c.admin.command("configureCollectionBalancing", "db.c", chunkSize=size)
    assert err.value.code == 72
    assert f"Chunk size '{size}' out of range [1MB, 1GB]" in str(err.value.details["errmsg"])


def test_configure_collection_balancing_on_an_unsharded_collection(make_cluster: Any) -> None:
    c = make_cluster("7.0")
    assert _code(c, configureCollectionBalancing="db.other", chunkSize=5) == 118


def test_defragmentation_is_reported_until_the_next_round(make_cluster: Any) -> None:
    c = make_cluster("7.0")
    c.admin.command("configureCollectionBalancing", "db.c", defragmentCollection=True)
    status = c.admin.command("balancerCollectionStatus", "db.c")
    assert status["firstComplianceViolation"] == "defragmentingChunks"
    c.balancer.run_round()
    assert c.admin.command("balancerCollectionStatus", "db.c")["balancerCompliant"] is True
