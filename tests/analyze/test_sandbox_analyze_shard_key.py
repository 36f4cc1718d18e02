"""The sandbox's analyzeShardKey (7.0+) over real pymongo: documented fields and value
ranges, and MongoDB's errors (cluster_analyze_shard_key_cmd.cpp, analyze_shard_key_util.cpp)."""

from __future__ import annotations

from typing import Any

import pytest
from pymongo.errors import OperationFailure

from tests.analyze.kit import SHARDS, serve_cluster

CLUSTER = (
    SHARDS
    + """
collections:
  - {ns: app.ev, key: {ts: 1}, chunks: 6, keys: {type: date, start: "2026-01-01T00:00:00Z"}}
  - {ns: app.h, key: {_id: hashed}, chunks: 4}
  - {ns: app.u, key: {country: 1, userId: 1}, keys: {type: list, values: [DE, FR]},
     documents: {prefixDistinct: {country: 3}}}
unsharded:
  - {ns: app.v, type: view}
  - {ns: app.metrics, type: timeseries}
"""
)


def _run(handle: Any, **body: Any) -> Any:
    return handle.client.admin.command({"analyzeShardKey": body.pop("ns"), **body})


def _code(handle: Any, **body: Any) -> tuple[int | None, str]:
    with pytest.raises(OperationFailure) as info:
        _run(handle, **body)
    return info.value.code, str(info.value.details.get("errmsg"))


def test_key_characteristics_have_the_documented_fields_and_ranges(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    kc = _run(handle, ns="app.ev", key={"ts": 1})["keyCharacteristics"]
    assert list(kc) == ["numDocsTotal", "avgDocSizeBytes", "numDocsSampled", "isUnique",
                        "numDistinctValues", "mostCommonValues", "monotonicity"]  # fmt: skip
    assert kc["numDocsTotal"] >= kc["numDocsSampled"] >= kc["numDistinctValues"] > 0
    freqs = [v["frequency"] for v in kc["mostCommonValues"]]
    assert 0 < len(freqs) <= 5 and freqs == sorted(freqs, reverse=True)
    assert kc["monotonicity"] == {"recordIdCorrelationCoefficient": 1.0, "type": "monotonic"}


def test_a_hashed_key_is_not_monotonic_with_coefficient_zero(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    kc = _run(handle, ns="app.h", key={"_id": "hashed"})["keyCharacteristics"]
    assert kc["monotonicity"] == {"recordIdCorrelationCoefficient": 0.0, "type": "not monotonic"}


def test_a_key_prefix_reports_its_own_distinct_values(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    kc = _run(handle, ns="app.u", key={"country": 1})["keyCharacteristics"]
    assert kc["numDistinctValues"] == 3 and kc["isUnique"] is False


def test_without_sampled_queries_the_distributions_are_zero(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    reply = _run(handle, ns="app.ev", key={"ts": 1}, keyCharacteristics=False)
    assert "keyCharacteristics" not in reply
    assert reply["readDistribution"]["sampleSize"]["total"] == 0
    assert reply["writeDistribution"]["sampleSize"]["total"] == 0


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ({"ns": "app.nope", "key": {"a": 1}}, 26, "The namespace does not exist"),
        ({"ns": "app.v", "key": {"a": 1}}, 166, "Operation not supported for a view"),
        ({"ns": "app.metrics", "key": {"a": 1}}, 20, "for a timeseries collection"),
        ({"ns": "config.chunks", "key": {"a": 1}}, 20, "internal collection"),
        ({"ns": "app.ev", "key": {"ts": -1}}, 2, "Unsupported shard key pattern"),
        ({"ns": "app.ev", "key": {"nope": 1}, "readWriteDistribution": False}, 20,
         "does not have a supporting index"),
        ({"ns": "app.ev", "key": {"ts": 1}, "sampleRate": 0.5, "sampleSize": 10}, 72, "both"),
        ({"ns": "app.ev"}, 40414, "'analyzeShardKey.key' is missing"),
    ],
)  # fmt: skip
def test_errors_are_the_servers(
    sandbox_server: Any, body: dict[str, Any], code: int, message: str
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    got, errmsg = _code(handle, **body)
    assert got == code and message in errmsg


def test_before_7_0_the_command_is_unknown(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER, version="6.0")
    assert _code(handle, ns="app.ev", key={"ts": 1})[0] == 59


def test_an_unsharded_collection_is_analyzed_from_its_documents(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    coll = handle.client.app.plain
    coll.insert_many([{"x": i, "y": (i * 37) % 50, "c": i % 3} for i in range(50)])
    for field in ("x", "y", "c"):
        coll.create_index(field)
    ascending = _run(handle, ns="app.plain", key={"x": 1})["keyCharacteristics"]
    assert ascending["monotonicity"]["type"] == "monotonic"
    assert ascending["numDocsTotal"] == ascending["numDistinctValues"] == 50
    shuffled = _run(handle, ns="app.plain", key={"y": 1})["keyCharacteristics"]
    assert shuffled["monotonicity"]["type"] == "not monotonic"
    skewed = _run(handle, ns="app.plain", key={"c": 1})["keyCharacteristics"]
    assert skewed["numDistinctValues"] == 3
    assert skewed["mostCommonValues"][0] == {"value": {"c": 0}, "frequency": 17}
    assert _code(handle, ns="app.plain", key={"nope": 1}, readWriteDistribution=False)[0] == 20


def test_skipping_every_metric_is_refused(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    body = {"keyCharacteristics": False, "readWriteDistribution": False}
    assert _code(handle, ns="app.ev", key={"ts": 1}, **body) == (
        72,
        "Cannot skip analyzing all metrics",
    )
