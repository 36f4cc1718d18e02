"""`apply --migrate` puts every namespace's moves in one queue: four collections whose
chunks go over four disjoint shard pairs move at once, not one collection after another;
a kill -9 in the middle, then `recover`, then `apply`, converges with nothing lost; and a
--parallel the shards cannot honour is said, never a hang."""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from apply_kit import Cluster, Make, spawn, zonectl

PAIRS = 4  # bench.n{k}: all chunks on s{2k}, its zone Z{k} on s{2k+1} alone
CHUNKS = 4
SHARDS = [f"s{i}" for i in range(2 * PAIRS)]


def _cluster_yaml() -> str:
    colls = "".join(
        f"  - {{ns: bench.n{k}, key: {{k: 1}}, chunks: {CHUNKS}, distribution: all-on-one, "
        f"shard: s{2 * k}, keys: {{type: int, start: 0, step: 100}}, "
        "chunkSize: {bytes: 8388608, docs: 100}}\n"
        for k in range(PAIRS)
    )
    shards = "".join(f"  - {{name: {s}}}\n" for s in SHARDS)
    return f'version: "7.0"\nshards:\n{shards}databases:\n  - {{name: bench, primary: s0}}\n' + (
        f"collections:\n{colls}"
    )


def _policy_yaml() -> str:
    shards = "".join(
        f"  {s}: [Z{i // 2}]\n" if i % 2 else f"  {s}: []\n" for i, s in enumerate(SHARDS)
    )
    colls = "".join(
        f"  bench.n{k}:\n    key: {{k: 1}}\n    ranges:\n"
        f"      - {{zone: Z{k}, min: {{k: {{$minKey: 1}}}}, max: {{k: {{$maxKey: 1}}}}}}\n"
        for k in range(PAIRS)
    )
    return f"apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n{shards}collections:\n{colls}"


@pytest.fixture
def four(make_cluster: Make, tmp_path: Path) -> tuple[Cluster, str]:
    (tmp_path / "cluster.yaml").write_text(_cluster_yaml())
    (tmp_path / "policy.yaml").write_text(_policy_yaml())
    return make_cluster(cluster=tmp_path / "cluster.yaml"), str(tmp_path / "policy.yaml")


def _placement(cluster: Cluster) -> dict[str, list[str]]:
    config = cluster.client.config
    out: dict[str, list[str]] = {}
    for k in range(PAIRS):
        uuid = config.collections.find_one({"_id": f"bench.n{k}"})["uuid"]
        out[f"bench.n{k}"] = [c["shard"] for c in config.chunks.find({"uuid": uuid}).sort("min")]
    return out


def _commits(cluster: Cluster) -> list[Any]:
    log = cluster.client.config.changelog.find({"what": "moveChunk.commit"})
    return list(log.sort([("time", 1), ("_id", 1)]))


def test_four_namespaces_on_disjoint_pairs_move_at_once(four: tuple[Cluster, str]) -> None:
    cluster, policy = four
    result = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert result.code == 0, result.err
    assert _placement(cluster) == {f"bench.n{k}": [f"s{2 * k + 1}"] * CHUNKS for k in range(4)}
    commits = _commits(cluster)
    assert len(commits) == PAIRS * CHUNKS
    # One queue: every namespace's first move commits before any namespace's second
    # (one namespace after another would commit all of bench.n0's first).
    assert {c["ns"] for c in commits[:PAIRS]} == {f"bench.n{k}" for k in range(PAIRS)}
    assert f"{PAIRS * CHUNKS} chunks moved, 0 skipped, 0 left" in result.err
    assert cluster.state()["noBalance"] == dict.fromkeys(_placement(cluster), False)


def test_a_parallel_above_what_the_shards_allow_is_said_and_runs(
    four: tuple[Cluster, str],
) -> None:
    cluster, policy = four
    args = ("apply", policy, "--uri", cluster.uri, "--yes", "--migrate", "--parallel", "9")
    result = zonectl(*args)
    assert result.code == 0, result.err
    assert "--parallel 9: 8 shards run at most 4 migration(s) at once" in result.err
    assert all(set(s) == {f"s{2 * k + 1}"} for k, s in enumerate(_placement(cluster).values()))


def test_kill_9_mid_queue_then_recover_then_apply_converges(four: tuple[Cluster, str]) -> None:
    cluster, policy = four
    # bench.n2's second move blocks, then its connection closes: the process is killed
    # while moves of the other namespaces are in flight or done.
    cluster.tap.arm("moveRange", "bench.n2", 2, blockConnection=True, blockTimeMS=3000,
                    closeConnection=True)  # fmt: skip
    proc = spawn("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    try:
        assert cluster.tap.fired.wait(60), proc.communicate(timeout=60)
    finally:
        proc.kill()  # SIGKILL: no finally of zonectl's runs
        proc.communicate(timeout=60)
    paused = cluster.state()["noBalance"]
    assert sum(paused.values()) == PAIRS  # every namespace of the queue was left paused
    recovered = zonectl("recover", "--uri", cluster.uri)
    assert recovered.code == 0, recovered.err
    assert cluster.state()["noBalance"] == dict.fromkeys(paused, False)
    assert cluster.lease() is None and cluster.open_journals() == []
    again = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert again.code == 0, again.err
    assert _placement(cluster) == {f"bench.n{k}": [f"s{2 * k + 1}"] * CHUNKS for k in range(4)}
    follow = zonectl("plan", policy, "--uri", cluster.uri, "--detailed-exitcode")
    assert follow.code == 0, follow.out
    assert cluster.state()["noBalance"] == dict.fromkeys(paused, False)
    assert cluster.lease() is None and cluster.open_journals() == []


MIXED_CLUSTER = """version: "8.0"
shards: [{name: s0}, {name: s1}, {name: s2}, {name: s3}]
databases: [{name: bench, primary: s0}, {name: shop, primary: s0}]
collections:
  - {ns: bench.n0, key: {k: 1}, chunks: 4, distribution: all-on-one, shard: s2,
     keys: {type: int, start: 0, step: 100}, chunkSize: {bytes: 8388608, docs: 100}}
unsharded:
  - {ns: shop.orders, bytes: 1073741824, docs: 10000}
"""
MIXED_POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
shards: {s0: [], s1: [logs], s2: [], s3: [Z0]}
collections:
  shop.orders: {pin: logs}
  bench.n0:
    key: {k: 1}
    ranges: [{zone: Z0, min: {k: {$minKey: 1}}, max: {k: {$maxKey: 1}}}]
"""


@contextlib.contextmanager
def ticking(cluster: Cluster) -> Iterator[None]:
    """Step the virtual clock 10 s every few real ms, as a clock someone drives (without it
    the quiet sandbox jumps to each due instant: commits and the moveCollection's end)."""
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(0.005):
            cluster.sandbox.clock.advance(dt.timedelta(seconds=10))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def test_a_move_collection_runs_alongside_the_chunk_moves(
    make_cluster: Make, tmp_path: Path
) -> None:
    (tmp_path / "cluster.yaml").write_text(MIXED_CLUSTER)
    (tmp_path / "policy.yaml").write_text(MIXED_POLICY)
    cluster = make_cluster("8.0", cluster=tmp_path / "cluster.yaml")
    policy = str(tmp_path / "policy.yaml")
    with ticking(cluster):
        result = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert result.code == 0, result.err
    config = cluster.client.config
    home = config.collections.find_one({"_id": "shop.orders"})
    assert home is not None
    assert config.chunks.find_one({"uuid": home["uuid"]})["shard"] == "s1"
    uuid = config.collections.find_one({"_id": "bench.n0"})["uuid"]
    assert {c["shard"] for c in config.chunks.find({"uuid": uuid})} == {"s3"}
    log = config.changelog
    started = log.find_one({"what": "resharding.coordinator.transition", "ns": "shop.orders"})
    last_commit = max(d["time"] for d in log.find({"what": "moveChunk.commit"}))
    # One queue: the moveCollection started with the chunk moves, not after the last one.
    assert started is not None and started["time"] < last_commit
    follow = zonectl("plan", policy, "--uri", cluster.uri, "--detailed-exitcode")
    assert follow.code == 0, follow.out


def test_a_move_whose_connection_resets_is_looked_up_and_sent_again(
    four: tuple[Cluster, str],
) -> None:
    cluster, policy = four
    cluster.tap.arm("moveRange", "bench.n1", 2, closeConnection=True)
    result = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert cluster.tap.fired.is_set()
    assert result.code == 0, result.err
    assert "the connection reset during the move and it has not committed; sent again" in (
        result.err
    )
    assert f"{PAIRS * CHUNKS} chunks moved, 0 skipped, 0 left" in result.err
    assert _placement(cluster) == {f"bench.n{k}": [f"s{2 * k + 1}"] * CHUNKS for k in range(4)}


def test_a_link_that_keeps_resetting_ends_the_run_after_a_few_tries(
    four: tuple[Cluster, str],
) -> None:
    cluster, policy = four
    cluster.tap.arm("moveRange", "bench.n1", 1, mode="alwaysOn", closeConnection=True)
    result = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert result.code == 1, result.err
    assert "the connection failed, the outcome is unknown" in result.err
    # failCommand fails every moveRange: each move started is sent 3 times, then the run
    # ends (the moves already running end first).
    again = [line.split(": the connection reset")[0] for line in result.err.splitlines()
             if "sent again" in line]  # fmt: skip
    assert again and all(again.count(chunk) == 2 for chunk in again)
    assert cluster.lease() is None and cluster.open_journals() == []
    assert cluster.state()["noBalance"] == dict.fromkeys(_placement(cluster), False)
