"""config.chunks queries by collection, range and shard (the {uuid, shard, min} index on a
config server) answer exactly what filtering every chunk would, and so do their counts."""

from __future__ import annotations

from typing import Any

import pytest
from bson import MaxKey, MinKey

from zonectl.model.keys import compare
from zonectl.sandbox.state import Sandbox

SHARDS = ("s0", "s1", "s2")


def _sandbox(version: str) -> Sandbox:
    sb = Sandbox(version)
    for shard in SHARDS:
        sb.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", ())
    bounds: list[dict[str, Any]] = [{"x": MinKey()}, *({"x": i} for i in range(1, 60))]
    bounds.append({"x": MaxKey()})
    owners = [SHARDS[(i * 7) % 3] for i in range(60)]
    sb.cluster.create_collection("app.e", {"x": 1}, bounds=bounds, shards=owners)
    return sb


def _brute(chunks: list[dict[str, Any]], shard: Any, lo: float, hi: float) -> list[Any]:
    def keep(c: dict[str, Any]) -> bool:
        inside = compare(c["min"], {"x": lo}) >= 0 and compare(c["min"], {"x": hi}) < 0
        return inside and _owned(c["shard"], shard)

    return [c["min"] for c in chunks if keep(c)]


@pytest.mark.parametrize(
    "shard", ["s1", {"$in": ["s0", "s2"]}, {"$nin": ["s0"]}, {"$nin": []}, {"$in": []}]
)
def test_chunk_range_and_shard_queries_and_counts_match_a_full_filter(
    sandbox_server: Any, server_version: str, shard: Any
) -> None:
    sb = sandbox_server(sandbox=_sandbox(server_version))
    config = sb.client.config
    coll = config.collections.find_one({"_id": "app.e"})
    base = {"uuid": coll["uuid"]} if "uuid" in coll else {"ns": "app.e"}
    every = list(config.chunks.find(base).sort("min", 1))
    assert len(every) == 60
    query = {**base, "shard": shard, "min": {"$gte": {"x": 10}, "$lt": {"x": 40}}}
    found = [c["min"] for c in config.chunks.find(query).sort("min", 1)]
    assert found == _brute(every, shard, 10, 40)
    assert config.command("count", "chunks", query=query)["n"] == len(found)
    assert config.chunks.count_documents(query) == len(found)
    whole = config.command("count", "chunks", query={**base, "shard": shard})["n"]
    assert whole == sum(1 for c in every if _owned(c["shard"], shard))


def _owned(owner: str, shard: Any) -> bool:
    if isinstance(shard, str):
        return owner == shard
    names = next(iter(shard.values()))
    return (owner in names) == ("$in" in shard)


@pytest.mark.parametrize("shard", [None, "s2", {"$nin": ["s1"]}])
def test_chunks_sorted_backwards_are_the_forward_order_reversed(
    sandbox_server: Any, shard: Any
) -> None:
    sb = sandbox_server(sandbox=_sandbox("7.0"))
    chunks = sb.client.config.chunks
    uuid = sb.client.config.collections.find_one({"_id": "app.e"})["uuid"]
    query: dict[str, Any] = {"uuid": uuid, "min": {"$lt": {"x": 30}}}
    if shard is not None:
        query["shard"] = shard
    forward = [c["min"] for c in chunks.find(query).sort("min", 1)]
    backward = [c["min"] for c in chunks.find(query).sort("min", -1)]
    assert forward and backward == forward[::-1]
    (last,) = chunks.find(query).sort("min", -1).limit(1)
    assert last["min"] == forward[-1]


def test_per_shard_counts_follow_splits_moves_and_merges(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=_sandbox("7.0"))
    admin, config = sb.client.admin, sb.client.config
    admin.command({"split": "app.e", "middle": {"x": 5.5}})  # [5, 6) sits on s2
    admin.command({"moveChunk": "app.e", "find": {"x": 5}, "to": "s1"})
    admin.command({"moveChunk": "app.e", "find": {"x": 5.5}, "to": "s1"})
    admin.command({"mergeChunks": "app.e", "bounds": [{"x": 5}, {"x": 6}]})
    uuid = config.collections.find_one({"_id": "app.e"})["uuid"]
    every = list(config.chunks.find({"uuid": uuid}).sort("min", 1))
    for shard in [*SHARDS, {"$in": ["s1"]}, {"$nin": ["s1"]}]:
        for lo, hi in ((-(10**9), 10**9), (4, 7), (5, 6), (5.5, 30)):
            query = {"uuid": uuid, "shard": shard, "min": {"$gte": {"x": lo}, "$lt": {"x": hi}}}
            expected = _brute(every, shard, lo, hi)
            assert config.command("count", "chunks", query=query)["n"] == len(expected)
            assert [c["min"] for c in config.chunks.find(query).sort("min", 1)] == expected


def test_a_long_backward_walk_yields_every_chunk_in_reverse(sandbox_server: Any) -> None:
    sb = Sandbox("7.0")
    sb.cluster.add_shard("s0", "s0/s0-a:27018", ())
    bounds: list[dict[str, Any]] = [{"x": MinKey()}, *({"x": i} for i in range(1, 2500))]
    sb.cluster.create_collection(
        "app.e", {"x": 1}, bounds=[*bounds, {"x": MaxKey()}], shards=["s0"] * 2500
    )
    chunks = sandbox_server(sandbox=sb).client.config.chunks
    forward = [c["min"] for c in chunks.find({}).sort("min", 1)]
    uuid = chunks.find_one({})["uuid"]
    backward = [c["min"] for c in chunks.find({"uuid": uuid}).sort("min", -1)]
    assert len(forward) == 2500 and backward == forward[::-1]
