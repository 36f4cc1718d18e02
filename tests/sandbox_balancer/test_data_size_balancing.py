"""Balancing by data size from 6.0.3 and the balancer's chunk-size `moveRange` cuts
(balancer-settings.md §6.1-§6.2; jstests/sharding/balancing_based_on_size.js,
move_range_basic.js)."""

from __future__ import annotations

from typing import Any

import pytest

MB = 1024 * 1024


@pytest.mark.parametrize(("version", "moves"), [("6.0.2", True), ("6.0.3", False),
                                                ("5.0", True), ("7.0", False)])  # fmt: skip
def test_small_chunks_move_by_count_before_6_0_3_only(
    make_cluster: Any, version: str, moves: bool
) -> None:
    c = make_cluster(version, points=[10, 20, 30], chunk_mb=0.1)
    assert bool(c.balancer.run_round().migrations) is moves


@pytest.mark.parametrize("version", ["6.0", "7.0", "8.0", "8.3"])
def test_a_balancer_migration_moves_one_chunk_size_of_a_big_chunk(
    make_cluster: Any, version: str
) -> None:
    c = make_cluster(
        version,
        shards=2,
        points=[0, 100],
        placement=["shard1", "shard0", "shard0"],
        chunk_mb=40,
        chunksize_mb=8,
    )
    store = c.sandbox.cluster.chunks("db.c")
    store.set_size(0, MB, 2)  # shard1: a small [MinKey, 0)
    (flight,) = c.balancer.run_round().migrations
    assert flight.min == {"x": 0}
    assert flight.max != {"x": 100}  # moveRange without max: the donor cut the range
    moved = store.index_of_min(flight.min)
    assert store.size_at(moved) == 8 * MB  # about one chunk size
    assert len(store) == 4  # the rest of [0, 100) stays one chunk
    c.balancer.complete_migrations()
    assert c.counts() == {"shard0": 2, "shard1": 2}
