"""Eager migration: straddling chunks split at the zone bound, every out-of-zone chunk
moved to its zone (moveRange on 6.0+, moveChunk on 5.0), within a budget."""

from __future__ import annotations

from typing import Any

import pytest
from apply_kit import MIGRATE, Cluster, Make, zonectl

from zonectl.model.keys import compare


def out_of_zone(cluster: Cluster, ns: str) -> list[Any]:
    c = cluster.client
    zones = {d["_id"]: set(d.get("tags", [])) for d in c.config.shards.find()}
    ranges = list(c.config.tags.find({"ns": ns}))
    coll = c.config.collections.find_one({"_id": ns})
    bad = []
    for chunk in c.config.chunks.find({"uuid": coll["uuid"]}):
        for r in ranges:
            inside = compare(r["min"], chunk["min"]) <= 0 and compare(chunk["max"], r["max"]) <= 0
            if inside and r["tag"] not in zones[chunk["shard"]]:
                bad.append(chunk)
    return bad


@pytest.mark.parametrize(("version", "move"), [("5.0", "moveChunk"), ("7.0", "moveRange")])
def test_eager_migration_leaves_no_out_of_zone_chunk(
    make_cluster: Make, version: str, move: str
) -> None:
    cluster = make_cluster(version)
    result = zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes")
    assert result.code == 0, result.err
    assert out_of_zone(cluster, "app.events") == []
    names = [name for name, _ in cluster.tap.seen]
    assert names.count("split") == 1  # [1500, 1600) at 1550
    assert names.count(move) == 6  # [1000, 1100) ... [1500, 1550)
    assert "6 chunks moved, 0 skipped, 0 left" in result.err
    # Balancing was paused while chunks moved, and restored after.
    assert cluster.state()["noBalance"]["app.events"] is False
    assert zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes").err.startswith(
        "No changes"
    )


def test_moved_chunks_fill_the_zone_evenly(cluster: Cluster) -> None:
    assert zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes").code == 0
    c = cluster.client
    coll = c.config.collections.find_one({"_id": "app.events"})
    archive = [d["shard"] for d in c.config.chunks.find({"uuid": coll["uuid"]})]
    assert abs(archive.count("s-std-0") - archive.count("s-std-1")) <= 1


def test_migrate_budget_stops_cleanly_and_a_rerun_finishes(cluster: Cluster) -> None:
    first = zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes", "--migrate-budget", "0s")
    assert first.code == 0, first.err
    assert "6 out-of-zone chunks left to the balancer" in first.err
    assert cluster.state()["noBalance"]["app.events"] is False
    second = zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes")
    assert second.code == 0, second.err
    assert out_of_zone(cluster, "app.events") == []


def test_a_chunk_too_big_is_skipped_and_reported(cluster: Cluster) -> None:
    cluster.tap.arm("moveRange", "app.events", 2, errorCode=153)
    result = zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes")
    assert result.code == 0, result.err
    assert "5 chunks moved, 1 skipped" in result.err
    assert "ChunkTooBig (153)" in result.err and "--force-jumbo" in result.err
    assert len(out_of_zone(cluster, "app.events")) == 1


def test_a_single_chunk_is_counted_in_the_singular(cluster: Cluster) -> None:
    cluster.tap.arm("moveRange", "app.events", 2, errorCode=153)
    assert zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes").code == 0
    again = zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes", "--migrate-budget", "0s")
    assert "1 out-of-zone chunk left to the balancer" in again.err, again.err
    last = zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes")
    assert "1 chunk moved, 0 skipped, 0 left" in last.err, last.err


def test_a_conflicting_migration_is_retried(cluster: Cluster) -> None:
    cluster.tap.arm("moveRange", "app.events", 1, errorCode=117)
    result = zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes")
    assert result.code == 0, result.err
    assert out_of_zone(cluster, "app.events") == []
