"""mergeAllChunksOnShard and the AutoMerger (7.0+) through pymongo.

The scenario and expectations of jstests/sharding/merge_all_chunks_on_shard.js
(`buildInitialScenario`, history window, jumbo flag, maxNumberOfChunksToMerge, the
auto-merger on the first balancer round), and the writes of mongosh's sh.startAutoMerger(),
stopAutoMerger(), enableAutoMerger(ns), disableAutoMerger(ns), isAutoMergerEnabled().
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st
from pymongo.errors import OperationFailure

from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

HISTORY = dt.timedelta(seconds=301)  # past the default 300 s snapshot history window
SHARD0 = {(MinKey, 0), (0, 1), (3, 4), (4, 5), (5, 6), (6, 7), (10, MaxKey)}
SHARD1 = {(1, 2), (2, 3), (7, 8), (8, 9), (9, 10)}


def _scenario(make_cluster: Any, version: str = "7.0", ns: str = "db.c") -> Any:
    """buildInitialScenario: split at 0..9, move [1,3) and [7,10) to shard1."""
    c = make_cluster(version, shards=2, chunksize_mb=None, ns=ns)
    for i in range(10):
        c.admin.command("split", ns, middle={"x": i})
    for lo in (1, 2, 7, 8, 9):
        c.admin.command("moveRange", ns, min={"x": lo}, max={"x": lo + 1}, toShard="shard1")
    assert _ranges(c, "shard0", ns) == SHARD0
    assert _ranges(c, "shard1", ns) == SHARD1
    return c


def _ranges(c: Any, shard: str, ns: str = "db.c") -> set[tuple[Any, Any]]:
    def value(v: Any) -> Any:
        return MinKey if isinstance(v, MinKey) else MaxKey if isinstance(v, MaxKey) else v

    return {
        (value(d["min"]["x"]), value(d["max"]["x"])) for d in c.chunks(ns) if d["shard"] == shard
    }


def _rounds(balancer: Any, clock: Any) -> int:
    """A balancer round, then another past two auto-merger throttles (15 s before the
    first shard's merges and 15 s before the next's): the chunks merged."""
    merged = int(balancer.run_round().merged)
    clock.advance(dt.timedelta(seconds=31))
    return merged + int(balancer.run_round().merged)


def _merge_all(c: Any, shard: str, ns: str = "db.c", **extra: Any) -> None:
    c.admin.command("mergeAllChunksOnShard", ns, shard=shard, **extra)


def test_merge_all_chunks_on_shard(make_cluster: Any) -> None:
    c = _scenario(make_cluster)
    _merge_all(c, "shard0")
    assert _ranges(c, "shard0") == SHARD0  # all inside the history window: nothing merged
    c.sandbox.clock.advance(HISTORY)
    _merge_all(c, "shard0")
    assert _ranges(c, "shard0") == {(MinKey, 1), (3, 7), (10, MaxKey)}
    _merge_all(c, "shard1")
    assert _ranges(c, "shard1") == {(1, 3), (7, 10)}
    merges = [m["details"] for m in c.client.config.changelog.find({"what": "merge"})]
    assert sorted(m["numChunks"] for m in merges) == [2, 2, 3, 4]  # logMergeToChangelog
    assert {m["owningShard"] for m in merges} == {"shard0", "shard1"}
    assert all(m["mergedVersion"]["v"] != m["prevPlacementVersion"]["v"] for m in merges)


def test_chunks_moved_within_the_history_window_stay(make_cluster: Any) -> None:
    c = _scenario(make_cluster)
    c.sandbox.clock.advance(HISTORY)
    for lo in (1, 2):
        c.admin.command("moveRange", "db.c", min={"x": lo}, max={"x": lo + 1}, toShard="shard0")
    _merge_all(c, "shard0")
    assert _ranges(c, "shard0") == {(MinKey, 1), (1, 2), (2, 3), (3, 7), (10, MaxKey)}
    _merge_all(c, "shard1")
    assert _ranges(c, "shard1") == {(7, 10)}


def test_jumbo_chunks_are_not_merged(make_cluster: Any) -> None:
    c = _scenario(make_cluster)
    c.sandbox.clock.advance(HISTORY)
    store = c.sandbox.cluster.chunks("db.c")
    for lo in (3, 8):
        store.set_jumbo(store.index_of_min({"x": lo}), True)
    _merge_all(c, "shard0")
    assert _ranges(c, "shard0") == {(MinKey, 1), (3, 4), (4, 7), (10, MaxKey)}
    _merge_all(c, "shard1")
    assert _ranges(c, "shard1") == {(1, 3), (7, 8), (8, 9), (9, 10)}


def test_max_number_of_chunks_to_merge_is_honoured(make_cluster: Any) -> None:
    c = make_cluster("7.0", shards=1, chunksize_mb=None)
    for i in range(10):
        c.admin.command("split", "db.c", middle={"x": i})
    c.sandbox.clock.advance(HISTORY)
    for left in range(10, 0, -1):
        _merge_all(c, "shard0", maxNumberOfChunksToMerge=2)
        assert len(c.chunks()) == left


def test_merge_all_chunks_on_shard_errors(make_cluster: Any) -> None:
    c = make_cluster("7.0")
    with pytest.raises(OperationFailure) as err:
        c.admin.command("mergeAllChunksOnShard", "db.c")
    assert err.value.code == 40414
    with pytest.raises(OperationFailure) as err:
        _merge_all(c, "nosuchshard")
    assert err.value.code == 70
    with pytest.raises(OperationFailure) as err:
        _merge_all(c, "shard0", ns="db.unsharded")
    assert err.value.code == 118
    with pytest.raises(OperationFailure) as err:
        make_cluster("6.0").admin.command("mergeAllChunksOnShard", "db.c", shard="shard0")
    assert err.value.code == 59  # 7.0+ only


@pytest.mark.parametrize("version", ["7.0", "8.0", "8.3"])
def test_the_auto_merger_merges_on_the_first_round_of_a_started_balancer(
    make_cluster: Any, version: str
) -> None:
    c = _scenario(make_cluster, version)
    c.sandbox.clock.advance(HISTORY)
    c.admin.command("balancerStop")
    _rounds(c.balancer, c.sandbox.clock)
    assert _ranges(c, "shard0") == SHARD0  # balancer off: the auto-merger is disabled
    c.admin.command("balancerStart")
    c.balancer.run_round()
    assert _ranges(c, "shard0") == SHARD0  # autoMergerThrottlingMS before the first merge
    c.sandbox.clock.advance(dt.timedelta(seconds=15))
    c.balancer.run_round()
    assert _ranges(c, "shard0") == {(MinKey, 1), (3, 7), (10, MaxKey)}
    assert _ranges(c, "shard1") == SHARD1  # the next shard's list: 15 s later
    c.sandbox.clock.advance(dt.timedelta(seconds=15))
    c.balancer.run_round()
    assert _ranges(c, "shard1") == {(1, 3), (7, 10)}


def test_balancer_start_and_stop_flip_automerge_from_7_0_only(make_cluster: Any) -> None:
    for version, flips in (("6.0", False), ("7.0", True), ("8.3", True)):
        c = make_cluster(version)
        settings = c.client.config.settings
        c.admin.command("balancerStop")
        doc = settings.find_one({"_id": "automerge"})
        assert (doc == {"_id": "automerge", "enabled": False}) is flips, version
        c.admin.command("balancerStart")
        doc = settings.find_one({"_id": "automerge"})
        assert (doc == {"_id": "automerge", "enabled": True}) is flips, version


def _sh(c: Any, helper: str, ns: str | None = None) -> Any:
    """mongosh's sh.*AutoMerger helpers, as the writes and reads they send."""
    config = c.client.config
    if helper == "startAutoMerger" or helper == "stopAutoMerger":
        config.settings.update_one(
            {"_id": "automerge"}, {"$set": {"enabled": helper == "startAutoMerger"}}, upsert=True
        )
    elif helper == "isAutoMergerEnabled":
        doc = config.settings.find_one({"_id": "automerge"})
        return True if doc is None else doc["enabled"]
    elif helper == "disableAutoMerger":
        config.collections.update_one({"_id": ns}, {"$set": {"enableAutoMerge": False}})
    elif helper == "enableAutoMerger":
        config.collections.update_one({"_id": ns}, {"$unset": {"enableAutoMerge": 1}})
    return None


def test_mongosh_helpers_switch_the_auto_merger_globally_and_per_collection(
    make_cluster: Any,
) -> None:
    c = _scenario(make_cluster)
    assert _sh(c, "isAutoMergerEnabled") is True
    _sh(c, "stopAutoMerger")
    assert _sh(c, "isAutoMergerEnabled") is False
    c.sandbox.clock.advance(HISTORY)
    _rounds(c.balancer, c.sandbox.clock)
    assert _ranges(c, "shard0") == SHARD0
    _sh(c, "startAutoMerger")
    _sh(c, "disableAutoMerger", "db.c")
    _rounds(c.balancer, c.sandbox.clock)
    assert _ranges(c, "shard0") == SHARD0  # the collection is switched off
    _sh(c, "enableAutoMerger", "db.c")
    c.sandbox.clock.advance(dt.timedelta(minutes=61))
    _rounds(c.balancer, c.sandbox.clock)
    # The next round only looks at chunks that arrived since the last round's watermark
    # (auto_merger_policy.cpp $lookup on onCurrentShardSince): these are older.
    assert _ranges(c, "shard0") == SHARD0
    _sh(c, "stopAutoMerger")
    _rounds(c.balancer, c.sandbox.clock)  # disabled: the watermarks are reset
    _sh(c, "startAutoMerger")
    _rounds(c.balancer, c.sandbox.clock)
    assert _ranges(c, "shard0") == {(MinKey, 1), (3, 7), (10, MaxKey)}


def test_a_merge_round_starts_an_hour_after_the_last(make_cluster: Any) -> None:
    c = _scenario(make_cluster)
    c.sandbox.clock.advance(HISTORY)
    _rounds(c.balancer, c.sandbox.clock)  # first round: merges everything old enough
    assert len(c.chunks()) == 5
    c.admin.command("moveRange", "db.c", min={"x": 1}, max={"x": 3}, toShard="shard0")
    c.sandbox.clock.advance(dt.timedelta(minutes=30))
    _rounds(c.balancer, c.sandbox.clock)
    assert len(c.chunks()) == 5  # not yet: autoMergerIntervalSecs is 3600
    c.sandbox.clock.advance(dt.timedelta(minutes=31))
    _rounds(c.balancer, c.sandbox.clock)
    assert _ranges(c, "shard0") == {(MinKey, 7), (10, MaxKey)}


@pytest.mark.parametrize("auto_merger", [True, False])
def test_a_cluster_file_sets_the_auto_merger_switch(
    sandbox_server: Any, tmp_path: Any, auto_merger: bool
) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(
        "version: '7.0'\nshards: [{name: s0}, {name: s1}]\n"
        f"balancer: {{autoMerger: {str(auto_merger).lower()}}}\n",
        encoding="utf-8",
    )
    sandbox = Sandbox("7.0")
    seed.seed(sandbox, seed.load(path))
    handle = sandbox_server(sandbox=sandbox)
    doc = handle.client.config.settings.find_one({"_id": "automerge"})
    assert doc == {"_id": "automerge", "enabled": auto_merger}


def test_no_auto_merger_on_a_7_0_binary_at_fcv_6_0() -> None:
    sandbox = Sandbox("7.0", fcv="6.0")
    sandbox.clock.set(dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC))
    sandbox.cluster.add_shard("shard0", "rs0/localhost:27018")
    bounds = [{"x": MinKey()}, {"x": 0}, {"x": MaxKey()}]
    sandbox.cluster.create_collection("db.c", {"x": 1}, bounds=bounds, shards=["shard0"] * 2)
    sandbox.clock.advance(HISTORY)
    assert _rounds(sandbox.balancer, sandbox.clock) == 0
    assert len(sandbox.cluster.chunks("db.c")) == 2
    at_7 = Sandbox("7.0")
    at_7.clock.set(dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC))
    at_7.cluster.add_shard("shard0", "rs0/localhost:27018")
    at_7.cluster.create_collection("db.c", {"x": 1}, bounds=bounds, shards=["shard0"] * 2)
    at_7.clock.advance(HISTORY)
    assert _rounds(at_7.balancer, at_7.clock) == 2


@settings(max_examples=25, deadline=None)
@given(
    layout=st.lists(
        st.tuples(st.sampled_from(["shard0", "shard1"]), st.booleans(), st.booleans()),
        min_size=1,
        max_size=14,
    )
)
def test_merge_all_chunks_on_shard_leaves_no_mergeable_pair(
    module_sandbox_server: Any, layout: list[tuple[str, bool, bool]]
) -> None:
    """Any placement, jumbo flags and ages: afterwards no two adjacent chunks on shard0
    are both old enough and not jumbo; shard1 and the key space are untouched."""
    n = len(layout)
    sb = Sandbox("7.0")
    sb.clock.set(dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC))
    for s in range(2):
        sb.cluster.add_shard(f"shard{s}", f"rs{s}/localhost:{27018 + s}")
    bounds = [{"x": MinKey()}, *({"x": i} for i in range(1, n)), {"x": MaxKey()}]
    shards = [shard for shard, _, _ in layout]
    store = sb.cluster.create_collection(
        "db.c", {"x": 1}, bounds=bounds, shards=shards, sizes=[1000] * n, counts=[10] * n
    )
    for i, (_, jumbo, _) in enumerate(layout):
        store.set_jumbo(i, jumbo)
    sb.clock.advance(HISTORY)
    for i, (shard, _, recent) in enumerate(layout):
        if recent:  # moved away and back: on its shard since now
            other = "shard1" if shard == "shard0" else "shard0"
            store.move(i, other, sb.cluster.now_ts())
            store.move(i, shard, sb.cluster.now_ts())
    before_shard1 = [(d.min, d.max) for d in store if d.shard == "shard1"]
    client = module_sandbox_server(sandbox=sb).client
    client.admin.command("mergeAllChunksOnShard", "db.c", shard="shard0")
    docs = list(client.config.chunks.find({"uuid": store.uuid}).sort("min", 1))
    assert docs[0]["min"] == {"x": MinKey()} and docs[-1]["max"] == {"x": MaxKey()}
    assert all(a["max"] == b["min"] for a, b in itertools.pairwise(docs))
    assert [(d["min"], d["max"]) for d in docs if d["shard"] == "shard1"] == before_shard1
    assert sb.cluster.chunks("db.c").total_size() == 1000 * n
    old = sb.cluster.now_ts().time - 300

    def mergeable(d: dict[str, Any]) -> bool:
        return d["shard"] == "shard0" and not d.get("jumbo") and d["onCurrentShardSince"].time < old

    assert not any(mergeable(a) and mergeable(b) for a, b in itertools.pairwise(docs))
