"""The sandbox's query analysis (7.0+) over real pymongo: configureQueryAnalyzer and
config.queryAnalyzers, the sampler on the sandbox clock, $listSampledQueries, $currentOp,
and analyzeShardKey's readWriteDistribution computed from the samples
(configure_query_analyzer_cmd.cpp, analyze_shard_key_read_write_distribution.cpp,
jstests/sharding/analyze_shard_key/read_and_write_distribution.js)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pymongo.errors import OperationFailure

from tests.analyze.kit import SHARDS, serve_cluster

CLUSTER = (
    SHARDS
    + """
collections:
  - {ns: app.u, key: {userId: 1}, chunks: 6, keys: {type: int, start: 0, step: 1000}}
  - {ns: app.h, key: {_id: hashed}, chunks: 4}
unsharded:
  - {ns: app.v, type: view}
  - {ns: app.metrics, type: timeseries}
"""
)


def _configure(handle: Any, ns: str, **body: Any) -> Any:
    return handle.client.admin.command({"configureQueryAnalyzer": ns, **body})


def _code(handle: Any, ns: str, **body: Any) -> tuple[int | None, str]:
    with pytest.raises(OperationFailure) as info:
        _configure(handle, ns, **body)
    return info.value.code, str(info.value.details.get("errmsg"))


def _step(handle: Any, seconds: float) -> None:
    handle.sandbox.clock.advance(dt.timedelta(seconds=seconds))
    handle.client.admin.command("ping")  # the sampler sees time pass when a command arrives


def test_configure_stores_the_analyzer_and_answers_old_and_new(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    first = _configure(handle, "app.u", mode="full", samplesPerSecond=5)
    assert first["newConfiguration"] == {"mode": "full", "samplesPerSecond": 5.0}
    assert "oldConfiguration" not in first
    doc = handle.client.config.queryAnalyzers.find_one({"ns": "app.u"})
    uuid = handle.client.config.collections.find_one({"_id": "app.u"})["uuid"]
    assert doc["_id"] == uuid and doc["mode"] == "full" and doc["samplesPerSecond"] == 5
    second = _configure(handle, "app.u", mode="off")
    assert second["oldConfiguration"] == {"mode": "full", "samplesPerSecond": 5.0}
    stopped = handle.client.config.queryAnalyzers.find_one({"ns": "app.u"})
    assert stopped["mode"] == "off" and "stopTime" in stopped


@pytest.mark.parametrize(
    ("ns", "body", "code", "message"),
    [
        ("app.u", {"mode": "full", "samplesPerSecond": 51}, 72, "less than or equal to 50"),
        ("app.u", {"mode": "full", "samplesPerSecond": 0}, 72, "greater than 0"),
        ("app.u", {"mode": "full"}, 72, "must be specified"),
        ("app.u", {"mode": "off", "samplesPerSecond": 1}, 72, "Cannot specify"),
        ("app.u", {"mode": "fast", "samplesPerSecond": 1}, 2, "Enumeration value 'fast'"),
        ("app.v", {"mode": "full", "samplesPerSecond": 1}, 166, "not supported for a view"),
        ("app.metrics", {"mode": "full", "samplesPerSecond": 1}, 20, "timeseries"),
        ("config.chunks", {"mode": "full", "samplesPerSecond": 1}, 20, "internal collection"),
        ("app.nope", {"mode": "full", "samplesPerSecond": 1}, 26, "does not exist"),
    ],
)  # fmt: skip
def test_configure_refuses_what_the_server_refuses(
    sandbox_server: Any, ns: str, body: dict[str, Any], code: int, message: str
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    got, errmsg = _code(handle, ns, **body)
    assert got == code and message in errmsg


def test_configure_is_unknown_before_7_0(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER, version="6.0")
    assert _code(handle, "app.u", mode="full", samplesPerSecond=1)[0] == 59


def test_samples_follow_the_rate_on_the_sandbox_clock_and_the_writer_interval(
    sandbox_server: Any,
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    _configure(handle, "app.u", mode="full", samplesPerSecond=2)
    _step(handle, 5)  # the sampler's next configuration refresh
    coll = handle.client.app.u
    for second in range(10):
        _step(handle, 1)
        for i in range(5):  # 5 queries a second, 2 samples a second
            coll.find_one({"userId": second * 10 + i})
    assert handle.client.config.sampledQueries.count_documents({}) == 0  # not flushed yet
    _step(handle, 90)
    samples = list(handle.client.admin.aggregate([{"$listSampledQueries": {"namespace": "app.u"}}]))
    assert 18 <= len(samples) <= 22  # 2/s for 10 s, plus at most the burst of the first step
    assert {s["cmdName"] for s in samples} == {"find"}
    assert samples[0]["cmd"]["filter"]["userId"] >= 0 and samples[0]["ns"] == "app.u"


def test_current_op_shows_the_sampler_with_local_ops(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    _configure(handle, "app.u", mode="full", samplesPerSecond=10)
    _step(handle, 6)
    handle.client.app.u.find_one({"userId": 1})
    handle.client.app.u.update_one({"userId": 2}, {"$set": {"x": 1}})
    stage = {"$currentOp": {"allUsers": True, "localOps": True}}
    ops = list(handle.client.admin.aggregate([stage, {"$match": {"desc": "query analyzer"}}]))
    assert len(ops) == 1 and ops[0]["ns"] == "app.u"
    assert ops[0]["sampledReadsCount"] == 1 and ops[0]["sampledWritesCount"] == 1


def _distribution(handle: Any, ns: str, key: dict[str, Any]) -> Any:
    return handle.client.admin.command(
        {"analyzeShardKey": ns, "key": key, "keyCharacteristics": False}
    )


def test_read_write_distribution_counts_single_multi_and_scatter(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    _configure(handle, "app.u", mode="full", samplesPerSecond=50)
    _step(handle, 6)
    coll = handle.client.app.u
    coll.insert_one({"userId": 5})  # inserts are not sampled
    for i in range(3):
        coll.find_one({"userId": i})  # single shard
    coll.count_documents({"userId": {"$gte": 10, "$lt": 2000}})  # multi-shard (aggregate)
    coll.find_one({"email": "x"})  # scatter-gather
    coll.update_one({"userId": 5}, {"$set": {"userId": 6}})  # a shard key update (a diff)
    coll.update_many({"email": "y"}, {"$set": {"z": 1}})  # multi write without shard key
    _step(handle, 91)
    reply = _distribution(handle, "app.u", {"userId": 1})
    reads, writes = reply["readDistribution"], reply["writeDistribution"]
    assert reads["sampleSize"] == {"total": 5, "find": 4, "aggregate": 1, "count": 0, "distinct": 0}
    assert reads["percentageOfSingleShardReads"] == pytest.approx(60.0)
    assert reads["percentageOfMultiShardReads"] == pytest.approx(20.0)
    assert reads["percentageOfScatterGatherReads"] == pytest.approx(20.0)
    assert len(reads["numReadsByRange"]) == 100 and sum(reads["numReadsByRange"]) >= 103
    assert writes["sampleSize"]["update"] == 2
    assert writes["percentageOfShardKeyUpdates"] == pytest.approx(50.0)
    assert writes["percentageOfMultiWritesWithoutShardKey"] == pytest.approx(50.0)
    # A candidate key needs no index for the distribution: `email` makes the email reads
    # single-shard and the userId reads scatter-gather.
    candidate = _distribution(handle, "app.u", {"email": 1})["readDistribution"]
    assert candidate["percentageOfSingleShardReads"] == pytest.approx(20.0)
    assert candidate["percentageOfScatterGatherReads"] == pytest.approx(80.0)


def test_a_range_on_a_hashed_key_is_scatter_gather(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    _configure(handle, "app.h", mode="full", samplesPerSecond=50)
    _step(handle, 6)
    handle.client.app.h.find_one({"_id": {"$gt": 5}})
    handle.client.app.h.find_one({"_id": 7})
    _step(handle, 91)
    reads = _distribution(handle, "app.h", {"_id": "hashed"})["readDistribution"]
    assert reads["percentageOfScatterGatherReads"] == pytest.approx(50.0)
    assert reads["percentageOfSingleShardReads"] == pytest.approx(50.0)


def test_list_sampled_queries_needs_cluster_monitor_and_7_0(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER, version="6.0")
    with pytest.raises(OperationFailure) as info:
        list(handle.client.admin.aggregate([{"$listSampledQueries": {}}]))
    assert info.value.code == 40324
