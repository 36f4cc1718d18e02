"""Figures name their source: splits and migrations of the last day come from
config.changelog, per-shard data from $shardedDataDistribution (or chunk counts before
6.0.3), key characteristics from analyzeShardKey."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.analyze.kit import SHARDS, analyze, collection, serve_cluster

CLUSTER = (
    SHARDS
    + """
collections:
  - {ns: app.c, key: {x: 1}, chunks: 4, keys: {type: int, start: 0, step: 1000},
     distribution: all-on-one, shard: s0}
"""
)


def _figures(report: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {f["name"]: f for f in collection(report, "app.c")["figures"]}


def test_recent_splits_and_migrations_come_from_the_changelog(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    handle.client.admin.command("moveChunk", "app.c", find={"x": 1500}, to="s1")
    handle.client.admin.command("split", "app.c", middle={"x": 2500})
    _, report, _ = analyze(handle.uri, tmp_path)
    changes = _figures(report)["changes in the last 24h"]
    assert changes["value"] == "moveChunk.commit 1, split 1"
    assert changes["source"] == "changelog"
    assert _figures(report)["data by shard"]["source"] == "$shardedDataDistribution"


def test_before_6_0_3_there_is_no_data_distribution_figure(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER, version="5.0")
    _, report, _ = analyze(handle.uri, tmp_path)
    figures = _figures(report)
    assert "data by shard" not in figures
    assert figures["chunks"]["value"] == "4 on 1 shard(s)"
    assert figures["monotonicity"]["confidence"] == "low"
