"""moveChunk, moveRange, split, mergeChunks, clearJumboFlag over pymongo (reference §4)."""

from __future__ import annotations

import datetime as dt
import threading
import time
from typing import Any

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey
from pymongo.errors import OperationFailure

VERSIONS = ("5.0", "6.0", "7.0", "8.0")
MB = 1024 * 1024


def _fail(c: Any, cmd: dict[str, Any]) -> OperationFailure:
    with pytest.raises(OperationFailure) as err:
        c.admin.command(cmd)
    return err.value


# ------------------------------------------------------------------ moveChunk validations
def test_move_chunk_malformed_requests_are_errmsg_only_on_5_0(make_cluster: Any) -> None:
    c = make_cluster("5.0", points=[10])
    neither = _fail(c, {"moveChunk": "db.c", "to": "shard1"})
    assert neither.code is None
    assert neither.details["errmsg"] == (
        "need to specify either a find query, or both lower and upper bounds."
    )
    both = _fail(
        c, {"moveChunk": "db.c", "find": {"x": 1}, "bounds": [{"x": 10}, {"x": 20}], "to": "x"}
    )
    assert both.code in (None, 70)
    bad = _fail(c, {"moveChunk": "db.c", "bounds": [{"y": 1}, {"y": 2}], "to": "shard1"})
    assert bad.code is None and "are not valid for shard key pattern" in bad.details["errmsg"]
    nokey = _fail(c, {"moveChunk": "db.c", "find": {"y": 1}, "to": "shard1"})
    assert nokey.code is None and "no shard key found in chunk query" in nokey.details["errmsg"]
    nochunk = _fail(c, {"moveChunk": "db.c", "bounds": [{"x": 0}, {"x": 10}], "to": "shard1"})
    assert nochunk.code is None
    assert "no chunk found with the shard key bounds" in nochunk.details["errmsg"]


@pytest.mark.parametrize("version", ["6.0", "7.0", "8.0"])
def test_move_chunk_malformed_requests_get_codes_from_6_0(make_cluster: Any, version: str) -> None:
    c = make_cluster(version, points=[10])
    assert _fail(c, {"moveChunk": "db.c", "to": "shard1"}).code == 72
    both = {"moveChunk": "db.c", "find": {"x": 1}, "bounds": [{"x": 10}, {"x": 20}]}
    assert _fail(c, {**both, "to": "shard1"}).code == 72
    three = {"moveChunk": "db.c", "bounds": [{"x": 1}, {"x": 2}, {"x": 3}], "to": "shard1"}
    assert _fail(c, three).code == 72
    assert _fail(c, {"moveChunk": "db.c", "find": {"y": 1}, "to": "shard1"}).code == 656450
    bad = {"moveChunk": "db.c", "bounds": [{"y": 1}, {"y": 2}], "to": "shard1"}
    assert _fail(c, bad).code == 656451
    nochunk = {"moveChunk": "db.c", "bounds": [{"x": 0}, {"x": 10}], "to": "shard1"}
    assert _fail(c, nochunk).code == 656452


@pytest.mark.parametrize("version", VERSIONS)
def test_move_chunk_namespace_and_shard_errors(make_cluster: Any, version: str) -> None:
    c = make_cluster(version, points=[10])
    assert _fail(c, {"moveChunk": "nodb.c", "find": {"x": 1}, "to": "shard1"}).code == 26
    c.sandbox.cluster.ensure_database("other")
    assert _fail(c, {"moveChunk": "other.c", "find": {"x": 1}, "to": "shard1"}).code == 118
    assert _fail(c, {"moveChunk": "db.c", "find": {"x": 1}, "to": "nope"}).code == 70
    assert _fail(c, {"moveChunk": "db.c", "find": {"x": 1}, "to": 5}).code == 14
    same = _fail(c, {"moveChunk": "db.c", "find": {"x": 1}, "to": "shard0"})
    assert same.code == 72
    assert same.details["errmsg"] == "Destination shard cannot be the same as source"
    assert _fail(c, {"moveChunk": "db", "find": {"x": 1}, "to": "shard1"}).code == 73


@pytest.mark.parametrize("version", VERSIONS)
def test_move_chunk_by_find_and_by_bounds_moves_the_chunk(make_cluster: Any, version: str) -> None:
    c = make_cluster(version, points=[10])
    first = c.chunks()[0]
    reply = c.admin.command("moveChunk", "db.c", find={"x": 3}, to="shard1")
    assert "millis" in reply
    moved = c.client.config.chunks.find_one({"_id": first["_id"]})
    assert moved["shard"] == "shard1"
    assert moved["lastmod"].time == first["lastmod"].time + 1
    assert moved["history"][0]["shard"] == "shard1"
    c.admin.command("moveChunk", "db.c", bounds=[{"x": 10}, {"x": MaxKey()}], to="shard2")
    assert [ch["shard"] for ch in c.chunks()] == ["shard1", "shard2"]


# ------------------------------------------------------------------ zones on manual moves
@pytest.mark.parametrize("version", VERSIONS)
def test_manual_move_out_of_zone_rejected_on_5_0_accepted_later_and_moved_back(
    make_cluster: Any, version: str
) -> None:
    c = make_cluster(version, points=[10])
    c.zone("shard0", "z")
    c.zone_range({"x": MinKey()}, {"x": 10}, "z")
    cmd = {"moveChunk": "db.c", "find": {"x": 1}, "to": "shard1"}
    if version == "5.0":
        err = _fail(c, cmd)
        assert err.code == 20
        assert err.details["errmsg"] == "shard1 is not in the correct zone z"
        return
    c.admin.command(cmd)
    assert c.chunks()[0]["shard"] == "shard1"
    status = c.admin.command("balancerCollectionStatus", "db.c")
    assert status["firstComplianceViolation"] == "zoneViolation"
    c.balancer.run_round()
    c.balancer.complete_migrations()
    assert c.chunks()[0]["shard"] == "shard0"


def test_manual_move_to_a_draining_shard_is_rejected_on_5_0(make_cluster: Any) -> None:
    c = make_cluster("5.0", points=[10])
    c.sandbox.cluster.set_shard_field("shard1", "draining", True)
    err = _fail(c, {"moveChunk": "db.c", "find": {"x": 1}, "to": "shard1"})
    assert err.code == 20 and err.details["errmsg"] == "shard1 is currently draining."


def test_manual_moves_ignore_no_balance(make_cluster: Any) -> None:
    c = make_cluster("7.0", points=[10])
    c.client.config.collections.update_one({"_id": "db.c"}, {"$set": {"noBalance": True}})
    c.admin.command("moveChunk", "db.c", find={"x": 1}, to="shard1")
    assert c.chunks()[0]["shard"] == "shard1"


@pytest.mark.parametrize("version", ["5.0", "7.0"])
def test_a_move_conflicting_with_an_in_flight_migration_fails(
    make_cluster: Any, version: str
) -> None:
    c = make_cluster(version, points=[10, 20, 30], chunk_mb=1)
    flight = c.balancer.run_round().migrations[0]
    other = next(ch for ch in c.chunks() if ch["min"] != flight.min and ch["shard"] == "shard0")
    err = _fail(c, {"moveChunk": "db.c", "bounds": [other["min"], other["max"]], "to": "shard2"})
    assert err.code == 117
    assert (
        "Unable to start new balancer operation because this shard is currently"
        in (err.details["errmsg"])
    )


def test_an_identical_move_joins_the_in_flight_migration(make_cluster: Any) -> None:
    c = make_cluster("5.0", points=[10, 20, 30])
    flight = c.balancer.run_round().migrations[0]
    cmd = {"moveChunk": "db.c", "bounds": [flight.min, flight.max], "to": flight.recipient}
    outcome: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: outcome.update(c.admin.command(cmd)), daemon=True)
    # Held, no quiet waiter jumps time: the migration cannot commit before the join is seen
    # (it would then drop out unseen, or arrive late and fail with 72), only our advance.
    with c.sandbox.clock.held():
        assert _fail(c, {**cmd, "maxTimeMS": 50}).code == 50  # joined and waited, no conflict
        thread.start()
        seen = c.balancer.wait_for(lambda: c.balancer.waiters > 1, time.monotonic() + 30)
        assert seen, "the identical moveChunk never joined the migration"
        c.sandbox.clock.advance(dt.timedelta(minutes=1))  # the migration's time passes
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert outcome["ok"] == 1.0
    chunk = c.client.config.chunks.find_one({"min": flight.min})
    assert chunk["shard"] == flight.recipient


@pytest.mark.parametrize("version", ["5.0", "7.0"])
def test_a_too_big_chunk_needs_force_jumbo(make_cluster: Any, version: str) -> None:
    c = make_cluster(version, points=[10], chunk_mb=1)
    c.sandbox.cluster.chunks("db.c").set_size(0, 10 * MB, 1000)
    err = _fail(c, {"moveChunk": "db.c", "find": {"x": 1}, "to": "shard1"})
    assert err.code == 153
    assert "jumbo" not in c.chunks()[0]  # a manual failure never marks jumbo
    c.admin.command("moveChunk", "db.c", find={"x": 1}, to="shard1", forceJumbo=True)
    assert c.chunks()[0]["shard"] == "shard1"


# ------------------------------------------------------------------ moveRange
def test_move_range_is_not_a_command_on_5_0(make_cluster: Any) -> None:
    c = make_cluster("5.0")
    assert _fail(c, {"moveRange": "db.c", "toShard": "shard1", "min": {"x": 0}}).code == 59


@pytest.mark.parametrize("version", ["6.0", "7.0", "8.0"])
def test_move_range_validations(make_cluster: Any, version: str) -> None:
    c = make_cluster(version, points=[10])
    bad = {"moveRange": "db.c", "toShard": "shard1", "min": {"x": 10}, "max": {"bad": 1}}
    assert _fail(c, bad).code == 72
    wrong = {"moveRange": "db.c", "toShard": "nope", "min": {"x": 10}, "max": {"x": MaxKey()}}
    assert _fail(c, wrong).code == 70
    max_only = {"moveRange": "db.c", "toShard": "shard1", "max": {"x": 10}}
    if version == "6.0":
        assert _fail(c, max_only).code == 72  # 6.0.0 requires min
    else:
        c.admin.command(max_only)
        assert c.chunks()[0]["shard"] == "shard1"


@pytest.mark.parametrize("version", ["6.0", "7.0", "8.0"])
def test_move_range_moves_a_whole_chunk_or_splits_a_smaller_range(
    make_cluster: Any, version: str
) -> None:
    c = make_cluster(version, points=[10, 100])
    c.admin.command("moveRange", "db.c", toShard="shard1", min={"x": 10}, max={"x": 100})
    assert [ch["shard"] for ch in c.chunks()] == ["shard0", "shard1", "shard0"]
    c.admin.command("moveRange", "db.c", toShard="shard2", min={"x": 20}, max={"x": 30})
    chunks = [(ch["min"], ch["shard"]) for ch in c.chunks()]
    assert ({"x": 20}, "shard2") in chunks
    assert len(chunks) == 5


def test_move_range_ignores_zones_from_6_0(make_cluster: Any) -> None:
    c = make_cluster("7.0", points=[10])
    c.zone("shard0", "z")
    c.zone_range({"x": MinKey()}, {"x": 10}, "z")
    c.admin.command("moveRange", "db.c", toShard="shard1", min={"x": MinKey()})
    assert c.chunks()[0]["shard"] == "shard1"


# ------------------------------------------------------------------ split
@pytest.mark.parametrize("version", VERSIONS)
def test_split_validations_are_errmsg_only(make_cluster: Any, version: str) -> None:
    c = make_cluster(version, points=[10])
    cases = {
        "need to specify find/bounds or middle": {},
        "cannot specify find and middle together": {"find": {"x": 1}, "middle": {"x": 2}},
        "cannot specify bounds and find at the same time": {
            "find": {"x": 1},
            "bounds": [{"x": 10}, {"x": MaxKey()}],
        },
        "cannot specify bounds and middle together": {
            "bounds": [{"x": 10}, {"x": MaxKey()}],
            "middle": {"x": 20},
        },
        "new split key { y: 1 } is not valid for shard key pattern { x: 1 }": {"middle": {"y": 1}},
        "new split key { x: 10 } is a boundary key of existing chunk [{ x: 10 },{ x: MaxKey })": {
            "middle": {"x": 10}
        },
        "no chunk found with the shard key bounds { x: 0 } -> { x: 10 }": {
            "bounds": [{"x": 0}, {"x": 10}]
        },
    }
    for message, fields in cases.items():
        err = _fail(c, {"split": "db.c", **fields})
        assert (err.code, err.details["errmsg"]) == (None, message)


@pytest.mark.parametrize("version", VERSIONS)
def test_split_at_middle_and_at_the_median(make_cluster: Any, version: str) -> None:
    c = make_cluster(version, points=[10, 100])
    c.admin.command("split", "db.c", middle={"x": 50})
    c.admin.command("split", "db.c", bounds=[{"x": 10}, {"x": 50}])
    mins = [ch["min"] for ch in c.chunks()]
    assert mins == [{"x": MinKey()}, {"x": 10}, {"x": 30}, {"x": 50}, {"x": 100}]
    assert c.client.config.changelog.count_documents({"what": "split"}) == 2
    err = _fail(c, {"split": "db.c", "find": {"x": 200}})
    assert err.code == 87  # [100, MaxKey) has no median the sandbox can compute


# ------------------------------------------------------------------ mergeChunks / clearJumboFlag
def test_merge_chunks_merges_contiguous_chunks_on_one_shard(make_cluster: Any) -> None:
    c = make_cluster("7.0", points=[10, 20, 30], placement=["shard0"] * 3 + ["shard1"])
    c.admin.command("mergeChunks", "db.c", bounds=[{"x": 10}, {"x": 30}])
    assert [ch["min"] for ch in c.chunks()] == [{"x": MinKey()}, {"x": 10}, {"x": 30}]
    span_shards = _fail(c, {"mergeChunks": "db.c", "bounds": [{"x": 10}, {"x": MaxKey()}]})
    assert span_shards.code == 20
    not_boundary = _fail(c, {"mergeChunks": "db.c", "bounds": [{"x": 15}, {"x": 30}]})
    assert not_boundary.code == 20
    assert _fail(c, {"mergeChunks": "db.c", "bounds": [{"x": 10}]}).code is None


def test_clear_jumbo_flag_resets_the_flag(make_cluster: Any) -> None:
    c = make_cluster("7.0", points=[10])
    c.sandbox.cluster.chunks("db.c").set_jumbo(0, True)
    assert c.chunks()[0]["jumbo"] is True
    c.admin.command("clearJumboFlag", "db.c", find={"x": 1})
    assert "jumbo" not in c.chunks()[0]
