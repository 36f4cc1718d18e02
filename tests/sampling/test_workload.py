"""A cluster file's query mix runs on the sandbox clock and is sampled like served queries:
the read/write distribution analyzeShardKey then reports matches the mix."""

from __future__ import annotations

from typing import Any

import pytest

from tests.analyze.kit import SHARDS
from tests.sampling.kit import serve_with_workload, step
from zonectl.sandbox.seed.schema import SeedError, load_cluster_file

CLUSTER = (
    SHARDS
    + """
collections:
  - ns: app.s
    key: {userId: 1}
    chunks: 8
    keys: {type: int, start: 0, step: 1000}
    workload:
      - {match: field, field: sessionId, rate: 30}
      - {match: key, rate: 10}
      - {match: field, field: sessionId, command: update, rate: 5, changesKey: true}
"""
)


def _distribution(handle: Any, key: dict[str, Any]) -> Any:
    return handle.client.admin.command(
        {"analyzeShardKey": "app.s", "key": key, "keyCharacteristics": False}
    )


def test_the_mix_is_sampled_once_sampling_is_on(sandbox_server: Any) -> None:
    handle = serve_with_workload(sandbox_server, CLUSTER)
    step(handle, 600)  # traffic on a collection nobody samples leaves nothing
    assert _distribution(handle, {"userId": 1})["readDistribution"]["sampleSize"]["total"] == 0
    handle.client.admin.command(
        {"configureQueryAnalyzer": "app.s", "mode": "full", "samplesPerSecond": 20}
    )
    for _ in range(20):
        step(handle, 30)
    reads = _distribution(handle, {"userId": 1})["readDistribution"]
    writes = _distribution(handle, {"userId": 1})["writeDistribution"]
    assert reads["sampleSize"]["total"] > 5000
    assert reads["percentageOfScatterGatherReads"] == pytest.approx(75.0, abs=3)
    assert reads["percentageOfSingleShardReads"] == pytest.approx(25.0, abs=3)
    assert writes["percentageOfShardKeyUpdates"] == pytest.approx(100.0)
    assert writes["percentageOfSingleWritesWithoutShardKey"] == pytest.approx(100.0)
    candidate = _distribution(handle, {"sessionId": 1})["readDistribution"]
    assert candidate["percentageOfSingleShardReads"] == pytest.approx(75.0, abs=3)


def test_a_seeded_analyzer_and_warmup_have_samples_from_the_first_command(
    sandbox_server: Any,
) -> None:
    text = CLUSTER.replace(
        "    workload:\n", "    queryAnalyzer: {samplesPerSecond: 10}\n    workload:\n"
    )
    handle = serve_with_workload(sandbox_server, text + "workload: {warmup: 5m}\n")
    reads = _distribution(handle, {"userId": 1})["readDistribution"]
    assert 2000 <= reads["sampleSize"]["total"] <= 3000  # 10/s for 5 min, writer-flushed
    assert handle.client.config.queryAnalyzers.count_documents({"ns": "app.s"}) == 1


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ("{match: field, rate: 1}", "'field' is named exactly when match is 'field'"),
        ("{match: key, rate: 0}", "greater than 0"),
        ("{match: key, rate: 1, command: find, changesKey: true}", "changesKey"),
    ],
)
def test_a_bad_shape_is_reported_at_its_line(shape: str, message: str) -> None:
    text = (
        SHARDS + f"collections:\n  - ns: app.s\n    key: {{a: 1}}\n    workload:\n      - {shape}\n"
    )
    with pytest.raises(SeedError) as info:
        load_cluster_file("c.yaml", text)
    assert "c.yaml:12:" in str(info.value) and message in str(info.value)
