"""moveCollection ops in the one queue of `apply --migrate` (8.0+), alongside chunk moves:
a moveCollection whose connection resets is looked up as a chunk move is (found done,
awaited, sent again; counted in the same resets), and one the server refuses fails its
namespace alone: named once, the other moves go on, exit 1, the journal honest. The resets
come from a TCP proxy in front of the sandbox (zonectl/sandbox/wire/reset_proxy.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from apply_kit import Cluster, Make, zonectl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zonectl.sandbox.wire.reset_proxy import ResetProxy

CLUSTER = """version: "8.0"
shards: [{name: s0}, {name: s1}, {name: s2}, {name: s3}, {name: s4}, {name: s5}]
databases: [{name: bench, primary: s0}, {name: shop, primary: s0}]
collections:
  - {ns: bench.n0, key: {k: 1}, chunks: 4, distribution: all-on-one, shard: s2,
     keys: {type: int, start: 0, step: 100}, chunkSize: {bytes: 8388608, docs: 100}}
  - {ns: bench.n1, key: {k: 1}, chunks: 4, distribution: all-on-one, shard: s4,
     keys: {type: int, start: 0, step: 100}, chunkSize: {bytes: 8388608, docs: 100}}
unsharded:
  - {ns: shop.orders, bytes: 1073741824, docs: 10000}
  - {ns: shop.other, bytes: 1048576, docs: 100}
"""
POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
shards: {s0: [], s1: [logs], s2: [], s3: [Z0], s4: [], s5: [Z1]}
collections:
  shop.orders: {pin: logs}
  bench.n0:
    key: {k: 1}
    ranges: [{zone: Z0, min: {k: {$minKey: 1}}, max: {k: {$maxKey: 1}}}]
  bench.n1:
    key: {k: 1}
    ranges: [{zone: Z1, min: {k: {$minKey: 1}}, max: {k: {$maxKey: 1}}}]
"""
WANT = {"bench.n0": ["s3"] * 4, "bench.n1": ["s5"] * 4, "shop.orders": ["s1"]}
ORDERS = "shop.orders (moveCollection) on s0 -> s1"


@pytest.fixture
def mixed(make_cluster: Make, tmp_path: Path) -> tuple[Cluster, str]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "policy.yaml").write_text(POLICY)
    return make_cluster("8.0", cluster=tmp_path / "cluster.yaml"), str(tmp_path / "policy.yaml")


@pytest.fixture
def proxy(mixed: tuple[Cluster, str]) -> Iterator[ResetProxy]:
    with ResetProxy(("127.0.0.1", mixed[0].handle.port)) as p:
        yield p


def _placement(cluster: Cluster) -> dict[str, list[str]]:
    config = cluster.client.config
    out: dict[str, list[str]] = {}
    for ns in WANT:
        entry = config.collections.find_one({"_id": ns})
        if entry is None:  # an untracked unsharded collection: on its database's primary
            out[ns] = [config.databases.find_one({"_id": ns.split(".")[0]})["primary"]]
            continue
        out[ns] = [c["shard"] for c in config.chunks.find({"uuid": entry["uuid"]}).sort("min")]
    return out


def _moves_started(cluster: Cluster, ns: str) -> int:
    """The moveCollections of `ns` the config server's coordinator started (changelog)."""
    log = cluster.client.config.changelog
    return int(
        log.count_documents(
            {"what": "resharding.coordinator.transition", "ns": ns, "details.newState": "cloning"}
        )
    )


def _reads_of_moves(cluster: Cluster) -> int:
    return cluster.tap.seen.count(("find", "config.reshardingOperations"))


def _converged(cluster: Cluster, policy: str) -> None:
    assert _placement(cluster) == WANT
    follow = zonectl("plan", policy, "--uri", cluster.uri, "--detailed-exitcode")
    assert follow.code == 0, follow.out
    assert cluster.lease() is None and cluster.open_journals() == []


def _journaled(cluster: Cluster, kind: str) -> list[str]:
    steps = cluster.client.zonectl.journal.find({"type": "step", "kind": kind})
    return [d["status"] for d in steps]


def test_a_move_collection_whose_reply_is_lost_after_it_committed_is_found_done(
    mixed: tuple[Cluster, str], proxy: ResetProxy
) -> None:
    cluster, policy = mixed
    # The moveCollection reaches the server whole and commits; its reply never reaches
    # zonectl, whose connection is reset instead.
    fired = proxy.cut("moveCollection", 1)
    result = zonectl("apply", policy, "--uri", proxy.uri, "--yes", "--migrate")
    assert fired.is_set()
    assert result.code == 0, result.err
    assert (
        f"{ORDERS}: the connection reset during the move; config.chunks shows it on its destination"
    ) in result.err
    assert "8 chunks moved, 0 skipped, 0 left; 1 connection reset (1 found done)" in result.err
    assert proxy.commands["moveCollection"] == 1  # not sent twice
    assert _moves_started(cluster, "shop.orders") == 1
    assert _journaled(cluster, "move_collection") == ["done"]
    _converged(cluster, policy)


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(reply_bytes=st.integers(0, 150))  # the whole reply is ~160 bytes
def test_however_much_of_its_reply_got_through_a_committed_move_collection_is_found_done(
    make_cluster: Make, tmp_path_factory: pytest.TempPathFactory, reply_bytes: int
) -> None:
    """None of the reply, part of its header, part of its body: the connection dies before
    pymongo has the whole reply, and the move is counted done, never sent twice."""
    tmp = tmp_path_factory.mktemp("cut")
    (tmp / "cluster.yaml").write_text(CLUSTER)
    (tmp / "policy.yaml").write_text(POLICY)
    cluster, policy = make_cluster("8.0", cluster=tmp / "cluster.yaml"), str(tmp / "policy.yaml")
    with ResetProxy(("127.0.0.1", cluster.handle.port)) as p:
        fired = p.cut("moveCollection", 1, reply_bytes=reply_bytes)
        result = zonectl("apply", policy, "--uri", p.uri, "--yes", "--migrate")
        assert p.commands["moveCollection"] == 1
    assert fired.is_set()
    assert result.code == 0, result.err
    assert "; 1 connection reset (1 found done)" in result.err
    assert _moves_started(cluster, "shop.orders") == 1
    _converged(cluster, policy)


def test_a_move_collection_still_running_when_its_connection_died_is_awaited(
    mixed: tuple[Cluster, str], proxy: ResetProxy
) -> None:
    cluster, policy = mixed
    # The moveCollection's connection dies 0.3 s in while the clock is held: the move still
    # runs on the server (config.reshardingOperations) when zonectl looks it up; time runs
    # on once zonectl has read that, and the move ends while zonectl waits for it.
    fired = proxy.cut("moveCollection", 1, after_s=0.3)
    looked: list[bool] = []

    def hold() -> None:
        with cluster.sandbox.clock.held():
            if not fired.wait(60):
                return
            before = _reads_of_moves(cluster)
            looked.append(_wait(lambda: _reads_of_moves(cluster) > before, 60))

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    try:
        result = zonectl("apply", policy, "--uri", proxy.uri, "--yes", "--migrate")
    finally:
        thread.join(60)
    assert fired.is_set() and looked == [True]
    assert result.code == 0, result.err
    assert (
        f"{ORDERS}: the connection reset during the move; the moveCollection still runs on "
        "the server: waiting for it"
    ) in result.err
    assert f"{ORDERS}: the moveCollection ended with the collection on its destination" in (
        result.err
    )
    assert "8 chunks moved, 0 skipped, 0 left; 1 connection reset (1 awaited)" in result.err
    assert proxy.commands["moveCollection"] == 1  # awaited, not sent again
    assert _moves_started(cluster, "shop.orders") == 1
    _converged(cluster, policy)


def test_a_refused_move_collection_fails_its_namespace_alone(
    mixed: tuple[Cluster, str],
) -> None:
    cluster, policy = mixed
    # Another client moves shop.other (unmanaged) while zonectl runs: the config server
    # runs one resharding at a time and refuses zonectl's moveCollection of shop.orders
    # (ReshardCollectionInProgress); the chunk moves of bench.n0 and bench.n1 go on.
    other: list[Any] = []
    refused: list[bool] = []

    def move_other() -> None:
        move = {"moveCollection": "shop.other", "toShard": "s2"}
        other.append(cluster.client.admin.command(move))

    def hold() -> None:
        with cluster.sandbox.clock.held():
            mover.start()
            _wait(lambda: _moves_started(cluster, "shop.other") == 1, 60)
            started.set()
            sent = ("moveCollection", "shop.orders")
            refused.append(_wait(lambda: sent in cluster.tap.seen, 60))

    started = threading.Event()
    mover = threading.Thread(target=move_other, daemon=True)
    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    try:
        assert started.wait(60)
        result = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    finally:
        holder.join(60)
        mover.join(60)
    assert refused == [True] and [r["ok"] for r in other] == [1.0]
    assert result.code == 1, result.err
    named = [line for line in result.err.splitlines() if line.startswith("zonectl: shop.orders:")]
    assert named == [
        "zonectl: shop.orders: 1 of 1 move failed: ReshardCollectionInProgress: A resharding "
        "operation is already in progress for shop.other"
    ], result.err
    assert "partial: 1 namespace failed, 8 moves of other namespaces completed" in result.err
    assert _placement(cluster) == {**WANT, "shop.orders": ["s0"]}  # not moved
    assert _journaled(cluster, "move_collection") == ["failed"]
    assert cluster.lease() is None and cluster.open_journals() == []
    recovered = zonectl("recover", "--uri", cluster.uri)
    assert recovered.code == 0, recovered.err
    assert cluster.open_journals() == []
    # The other move has ended: the follow-up apply moves shop.orders, nothing else.
    again = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert again.code == 0, again.err
    assert _moves_started(cluster, "shop.orders") == 1
    _converged(cluster, policy)


def _wait(done: Any, timeout_s: float) -> bool:
    deadline = threading.Event()
    timer = threading.Timer(timeout_s, deadline.set)
    timer.start()
    try:
        while not done():
            if deadline.wait(0.01):
                return False
        return True
    finally:
        timer.cancel()


def test_a_move_collection_another_move_outlasts_fails_its_namespace_alone(
    mixed: tuple[Cluster, str],
) -> None:
    cluster, policy = mixed
    # A saved plan; then another client moves shop.orders to s2 (outside its zone) and that
    # move outlasts --wait-timeout: zonectl sends no second one and fails that namespace
    # alone; the chunk moves go on once the clock runs again.
    saved = str(Path(policy).with_name("plan.json"))
    planned = zonectl("plan", policy, "--uri", cluster.uri, "--save-plan", saved)
    assert planned.code == 0, planned.err
    journal = cluster.client.zonectl.journal
    given_up = {"type": "step", "kind": "move_collection", "status": "failed"}
    mover = threading.Thread(
        target=lambda: cluster.client.admin.command(
            {"moveCollection": "shop.orders", "toShard": "s2"}
        ),
        daemon=True,
    )
    started, seen = threading.Event(), []

    def hold() -> None:
        with cluster.sandbox.clock.held():
            mover.start()
            _wait(lambda: _moves_started(cluster, "shop.orders") == 1, 60)
            started.set()
            seen.append(_wait(lambda: journal.count_documents(given_up) == 1, 60))

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    try:
        assert started.wait(60)
        result = zonectl(
            "apply", "--plan", saved, "--uri", cluster.uri, "--yes", "--migrate",
            "--wait-timeout", "1s",
        )  # fmt: skip
    finally:
        holder.join(60)
        mover.join(60)
    assert seen == [True]
    assert result.code == 1, result.err
    failed = "zonectl: shop.orders: 1 of 1 move failed: "
    named = [line for line in result.err.splitlines() if line.startswith(failed)]
    assert len(named) == 1 and named[0].startswith(
        f"{failed}the moveCollection to s2 started at "
    ), result.err
    assert "is still running; zonectl does not start a second one" in named[0]
    assert "partial: 1 namespace failed, 8 moves of other namespaces completed" in result.err
    assert _placement(cluster) == {**WANT, "shop.orders": ["s2"]}  # the other move's end
    assert _moves_started(cluster, "shop.orders") == 1  # zonectl sent none
    assert cluster.lease() is None and cluster.open_journals() == []
    again = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert again.code == 0, again.err
    _converged(cluster, policy)
