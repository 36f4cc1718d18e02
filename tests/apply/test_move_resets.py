"""`apply --migrate` over a link that resets connections (a load balancer's idle timeout, a
mongos restarted): a move whose connection died is looked up, and counted as done, awaited
or sent again; the run converges and its summary counts the resets. The resets come from a
TCP proxy in front of the sandbox (zonectl/sandbox/wire/reset_proxy.py): the server still
gets the whole command and runs it to its end, as a real donor does."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymongo
import pytest
from apply_kit import Cluster, Make, zonectl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zonectl.sandbox.wire.reset_proxy import ResetProxy

SHARDS = [f"s{i}" for i in range(8)]


def _files(tmp_path: Path, pairs: int, chunks: int, version: str = "7.0") -> tuple[Path, str]:
    """bench.n{k}: `chunks` chunks on s{2k}; its zone Z{k} on s{2k+1} alone."""
    colls = "".join(
        f"  - {{ns: bench.n{k}, key: {{k: 1}}, chunks: {chunks}, distribution: all-on-one, "
        f"shard: s{2 * k}, keys: {{type: int, start: 0, step: 100}}, "
        "chunkSize: {bytes: 8388608, docs: 100}}\n"
        for k in range(pairs)
    )
    shards = "".join(f"  - {{name: {s}}}\n" for s in SHARDS[: 2 * pairs])
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(
        f'version: "{version}"\nshards:\n{shards}databases:\n  - {{name: bench, primary: s0}}\n'
        f"collections:\n{colls}"
    )
    members = "".join(
        f"  {s}: [Z{i // 2}]\n" if i % 2 else f"  {s}: []\n"
        for i, s in enumerate(SHARDS[: 2 * pairs])
    )
    ranges = "".join(
        f"  bench.n{k}:\n    key: {{k: 1}}\n    ranges:\n"
        f"      - {{zone: Z{k}, min: {{k: {{$minKey: 1}}}}, max: {{k: {{$maxKey: 1}}}}}}\n"
        for k in range(pairs)
    )
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        f"apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n{members}collections:\n{ranges}"
    )
    return cluster, str(policy)


def _placement(cluster: Cluster, pairs: int) -> dict[str, list[str]]:
    config = cluster.client.config
    out: dict[str, list[str]] = {}
    for k in range(pairs):
        uuid = config.collections.find_one({"_id": f"bench.n{k}"})["uuid"]
        out[f"bench.n{k}"] = [c["shard"] for c in config.chunks.find({"uuid": uuid}).sort("min")]
    return out


def _commits(cluster: Cluster) -> int:
    return int(cluster.client.config.changelog.count_documents({"what": "moveChunk.commit"}))


def _real_time(cluster: Cluster, seconds_per_move: float) -> None:
    """The sandbox clock follows real time and a move lasts about `seconds_per_move`
    (8 MiB chunks; the fixed steps of a migration take about 0.9 s), so a proxy's resets
    land in the middle of moves."""
    cluster.sandbox.clock.set(None)
    copy_s = max(seconds_per_move - 0.9, 0.05)
    cluster.sandbox.balancer.costs.copy_rate = 8 * 1024 * 1024 / copy_s


@pytest.fixture
def proxy(request: pytest.FixtureRequest) -> Iterator[Any]:
    proxies: list[ResetProxy] = []

    def make(cluster: Cluster, **options: Any) -> ResetProxy:
        p = ResetProxy(("127.0.0.1", cluster.handle.port), **options).__enter__()
        proxies.append(p)
        return p

    yield make
    for p in proxies:
        p.__exit__(None, None, None)


def _converged(cluster: Cluster, policy: str, pairs: int, chunks: int) -> None:
    want = {f"bench.n{k}": [f"s{2 * k + 1}"] * chunks for k in range(pairs)}
    assert _placement(cluster, pairs) == want
    follow = zonectl("plan", policy, "--uri", cluster.uri, "--detailed-exitcode")
    assert follow.code == 0, follow.out
    assert cluster.lease() is None and cluster.open_journals() == []
    assert cluster.state()["noBalance"] == dict.fromkeys(want, False)


def test_a_move_that_committed_before_its_connection_died_is_found_done(
    make_cluster: Make, tmp_path: Path, proxy: Any
) -> None:
    file, policy = _files(tmp_path, pairs=4, chunks=4)
    cluster = make_cluster(cluster=file)
    p = proxy(cluster)
    # The 3rd moveRange reaches the server whole and commits; its reply never reaches
    # zonectl, whose connection is reset instead.
    fired = p.cut("moveRange", 3)
    result = zonectl("apply", policy, "--uri", p.uri, "--yes", "--migrate")
    assert fired.is_set()
    assert result.code == 0, result.err
    assert "the connection reset during the move; config.chunks shows it done" in result.err
    assert "16 chunks moved, 0 skipped, 0 left; 1 connection reset (1 found done)" in result.err
    # Neither pymongo (moveRange is no retryable write) nor zonectl sent it a second time.
    assert p.commands["moveRange"] == 16
    assert _commits(cluster) == 16
    _converged(cluster, policy, 4, 4)


@settings(
    max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(nth=st.integers(1, 8), reply_bytes=st.integers(0, 100))  # the reply is ~160 bytes
def test_any_move_whose_reply_is_cut_short_is_found_done_and_never_sent_twice(
    make_cluster: Make, tmp_path_factory: pytest.TempPathFactory, nth: int, reply_bytes: int
) -> None:
    """Whichever move of the queue loses its reply, and however much of the reply got
    through (none, part of the header, part of the body), the run counts it done."""
    file, policy = _files(tmp_path_factory.mktemp("cut"), pairs=4, chunks=2)
    cluster = make_cluster(cluster=file)
    with ResetProxy(("127.0.0.1", cluster.handle.port)) as p:
        fired = p.cut("moveRange", nth, reply_bytes=reply_bytes)
        result = zonectl("apply", policy, "--uri", p.uri, "--yes", "--migrate")
    assert fired.is_set()
    assert result.code == 0, result.err
    assert "8 chunks moved, 0 skipped, 0 left; 1 connection reset (1 found done)" in result.err
    assert p.commands["moveRange"] == 8
    assert _commits(cluster) == 8
    _converged(cluster, policy, 4, 2)


@pytest.mark.parametrize("version", ["5.0", "7.0", "8.0"])
def test_a_move_still_running_when_its_connection_died_is_awaited_not_sent_again(
    make_cluster: Make, tmp_path: Path, proxy: Any, version: str
) -> None:
    file, policy = _files(tmp_path, pairs=2, chunks=2, version=version)
    cluster = make_cluster(version, cluster=file)
    _real_time(cluster, seconds_per_move=3.0)
    p = proxy(cluster)
    # The connection of the first move dies 0.3 s in; the migration goes on on the donor
    # for about 3 s more ($currentOp shows it) and zonectl waits for it.
    command = "moveChunk" if version == "5.0" else "moveRange"
    fired = p.cut(command, 1, after_s=0.3)
    result = zonectl("apply", policy, "--uri", p.uri, "--yes", "--migrate")
    assert fired.is_set()
    assert result.code == 0, result.err
    assert "the migration still runs on the server: waiting for it" in result.err
    assert "the migration ended with the chunk on its destination" in result.err
    assert "4 chunks moved, 0 skipped, 0 left; 1 connection reset (1 awaited)" in result.err
    assert p.commands[command] == 4  # the reset move was not sent again
    assert _commits(cluster) == 4
    _converged(cluster, policy, 2, 2)


def test_apply_through_a_link_that_resets_every_connection_converges(
    make_cluster: Make, tmp_path: Path, proxy: Any
) -> None:
    pairs, chunks = 4, 2
    file, policy = _files(tmp_path, pairs=pairs, chunks=chunks)
    cluster = make_cluster(cluster=file)
    # Every connection lives 0.5-1.5 s and every move lasts about 2 s: each move's
    # connection dies under it (three resets of one move ended the run before the lookup
    # awaited migrations in flight).
    _real_time(cluster, seconds_per_move=2.0)
    p = proxy(cluster, lifetime=(0.5, 1.5), seed=31)
    result = zonectl("apply", policy, "--uri", p.uri, "--yes", "--migrate")
    assert result.code == 0, result.err
    summary = re.search(
        r"8 chunks moved, 0 skipped, 0 left; (\d+) connection resets \(", result.err
    )
    assert summary, result.err
    assert int(summary.group(1)) >= pairs * chunks  # each move was reset at least once
    assert p.resets >= pairs * chunks
    assert _commits(cluster) == pairs * chunks  # nothing moved twice, nothing lost
    _converged(cluster, policy, pairs, chunks)


def test_pymongo_does_not_retry_a_move_whose_connection_reset(
    make_cluster: Make, tmp_path: Path, proxy: Any
) -> None:
    """moveRange is no retryable write and `Database.command` never retries: the reset
    reaches zonectl as a connection error, once, while the server committed the move."""
    file, _ = _files(tmp_path, pairs=1, chunks=2)
    cluster = make_cluster(cluster=file)
    p = proxy(cluster)
    fired = p.cut("moveRange", 1, reply_bytes=10)
    client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(p.uri)
    try:
        with pytest.raises(pymongo.errors.AutoReconnect):
            client.admin.command(
                {"moveRange": "bench.n0", "min": {"k": 0}, "max": {"k": 100}, "toShard": "s1"}
            )
    finally:
        client.close()
    assert fired.is_set()
    assert p.commands["moveRange"] == 1
    uuid = cluster.client.config.collections.find_one({"_id": "bench.n0"})["uuid"]
    moved = cluster.client.config.chunks.find_one({"uuid": uuid, "min": {"k": 0}})
    assert moved["shard"] == "s1"
