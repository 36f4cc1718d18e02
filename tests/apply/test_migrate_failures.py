"""Bad input for the one queue of `apply --migrate`: a shard that refuses migrations, or a
namespace dropped mid-apply. The other namespaces' moves go on, each failed namespace is
named once at the end with the server's reason, the exit code says partial (1), the journal
holds as done only the moves the cluster committed, and a follow-up apply finishes the rest."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from apply_kit import Cluster, Make, zonectl

PAIRS = 4  # bench.n{k}: all chunks on s{2k}; its zone Z{k} on s{2k+1} alone
CHUNKS = 4
SHARDS = [f"s{i}" for i in range(2 * PAIRS)]
EVERY = {f"bench.n{k}" for k in range(PAIRS)}


def _cluster_yaml(version: str, shards: list[str]) -> str:
    colls = "".join(
        f"  - {{ns: bench.n{k}, key: {{k: 1}}, chunks: {CHUNKS}, distribution: all-on-one, "
        f"shard: s{2 * k}, keys: {{type: int, start: 0, step: 100}}, "
        "chunkSize: {bytes: 8388608, docs: 100}}\n"
        for k in range(PAIRS)
    )
    listed = "".join(f"  - {{name: {s}}}\n" for s in shards)
    return (
        f'version: "{version}"\nshards:\n{listed}databases:\n  - {{name: bench, primary: s0}}\n'
        f"collections:\n{colls}"
    )


def _policy_yaml(second: dict[str, str]) -> str:
    """Z{k} on s{2k+1}; `second` adds shards to zones ({"s8": "Z1"})."""
    shards = "".join(
        f"  {s}: [Z{i // 2}]\n" if i % 2 else f"  {s}: []\n" for i, s in enumerate(SHARDS)
    ) + "".join(f"  {s}: [{zone}]\n" for s, zone in second.items())
    colls = "".join(
        f"  bench.n{k}:\n    key: {{k: 1}}\n    ranges:\n"
        f"      - {{zone: Z{k}, min: {{k: {{$minKey: 1}}}}, max: {{k: {{$maxKey: 1}}}}}}\n"
        for k in range(PAIRS)
    )
    return f"apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n{shards}collections:\n{colls}"


def _four(
    make_cluster: Make, tmp_path: Path, version: str, second: dict[str, str] | None = None
) -> tuple[Cluster, str]:
    second = second or {}
    (tmp_path / "cluster.yaml").write_text(_cluster_yaml(version, SHARDS + list(second)))
    (tmp_path / "policy.yaml").write_text(_policy_yaml(second))
    return make_cluster(version, cluster=tmp_path / "cluster.yaml"), str(tmp_path / "policy.yaml")


def _placement(cluster: Cluster) -> dict[str, list[str]]:
    config = cluster.client.config
    out: dict[str, list[str]] = {}
    for doc in config.collections.find({"_id": {"$in": sorted(EVERY)}}):
        chunks = config.chunks.find({"uuid": doc["uuid"]}).sort("min")
        out[doc["_id"]] = [c["shard"] for c in chunks]
    return out


def _in_zone(cluster: Cluster, ns: str) -> bool:
    k = int(ns.rsplit("n", 1)[1])
    return _placement(cluster)[ns] == [f"s{2 * k + 1}"] * CHUNKS


def _journaled_moves(cluster: Cluster) -> list[tuple[str, str]]:
    """(op, status) of every move step of every journal in zonectl's database."""
    steps = cluster.client.zonectl.journal.find({"type": "step", "kind": {"$regex": "^move"}})
    return [(d["op"], d["status"]) for d in steps]


def _committed(cluster: Cluster) -> dict[str, int]:
    """Per namespace, the migrations the cluster committed (config.changelog)."""
    out: dict[str, int] = {}
    for d in cluster.client.config.changelog.find({"what": "moveChunk.commit"}):
        out[d["ns"]] = out.get(d["ns"], 0) + 1
    return out


def _journal_is_honest(cluster: Cluster) -> None:
    """Every move journaled as moved committed on the cluster, and the other way round."""
    moved: dict[str, int] = {}
    for op, status in _journaled_moves(cluster):
        if status == "moved":
            ns = next(n for n in EVERY if f" {n} " in f" {op} ")
            moved[ns] = moved.get(ns, 0) + 1
    assert moved == _committed(cluster)


@contextlib.contextmanager
def mid_queue(cluster: Cluster, action: Callable[[], Any]) -> Iterator[None]:
    """Run `action` (another client's command) once every namespace's first move is in
    flight: the sandbox clock is held meanwhile, so none of them can commit before it."""
    held, done = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        with cluster.sandbox.clock.held():
            held.set()
            try:
                while len(cluster.sandbox.balancer.active) < PAIRS:
                    if done.wait(0.01):
                        return
                action()
            except BaseException as exc:
                errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    held.wait(10)
    try:
        yield
    finally:
        done.set()
        thread.join(60)
    assert not errors, errors


def test_a_recipient_that_starts_draining_mid_apply_refuses_and_the_rest_goes_on(
    make_cluster: Make, tmp_path: Path
) -> None:
    # 5.0: moveChunk goes through checkMoveAllowed, which refuses a draining destination
    # (IllegalOperation "<shard> is currently draining."; reference §4.1; 6.0+ no longer
    # checks, SERVER-81352). Zone Z1 is on s3 and s8 (removeShard refuses to drain the only
    # shard of a zone with ranges, §1.3); s3 starts draining while the first moves run.
    cluster, policy = _four(make_cluster, tmp_path, "5.0", {"s8": "Z1"})
    with mid_queue(cluster, lambda: cluster.client.admin.command("removeShard", "s3")):
        result = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert result.code == 1, result.err
    assert all(_in_zone(cluster, ns) for ns in EVERY - {"bench.n1"})
    failed = [line for line in result.err.splitlines() if line.startswith("zonectl: bench.n1: ")]
    assert len(failed) == 1, result.err
    assert " of 4 moves failed: IllegalOperation: s3 is currently draining." in failed[0]
    assert "1 namespace failed, 12 moves of other namespaces completed" in result.err
    assert "s2" in _placement(cluster)["bench.n1"]  # what failed is still on the donor
    assert cluster.state()["noBalance"] == dict.fromkeys(EVERY, False)
    assert cluster.lease() is None and cluster.open_journals() == []
    _journal_is_honest(cluster)
    # The next apply sees s3 draining (no home for chunks: what it received moves on too)
    # and sends everything of bench.n1 to s8.
    again = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert again.code == 0, again.err
    assert _placement(cluster)["bench.n1"] == ["s8"] * CHUNKS
    _journal_is_honest(cluster)


def test_a_collection_that_stops_allowing_migrations_mid_apply_fails_alone(
    make_cluster: Make, tmp_path: Path
) -> None:
    # setAllowMigrations false (what a resharding or another DDL does to a collection):
    # the running migration is aborted (Interrupted) and the donor refuses the next ones
    # with ConflictingOperationInProgress, "Collection is undergoing changes ..."
    # (migration_source_manager.cpp); zonectl does not retry that form of 117.
    cluster, policy = _four(make_cluster, tmp_path, "7.0")
    stop = {"setAllowMigrations": "bench.n1", "allowMigrations": False}
    with mid_queue(cluster, lambda: cluster.client.admin.command(stop)):
        result = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert result.code == 1, result.err
    assert {ns for ns in EVERY if _in_zone(cluster, ns)} == EVERY - {"bench.n1"}
    assert _placement(cluster)["bench.n1"] == ["s2"] * CHUNKS
    failed = [line for line in result.err.splitlines() if line.startswith("zonectl: bench.n1: ")]
    assert len(failed) == 1, result.err
    assert "4 of 4 moves failed: Interrupted: operation was interrupted; " in failed[0]
    assert "ConflictingOperationInProgress: Collection is undergoing changes" in failed[0]
    assert "1 namespace failed, 12 moves of other namespaces completed" in result.err
    assert cluster.state()["noBalance"] == dict.fromkeys(EVERY, False)
    assert cluster.lease() is None and cluster.open_journals() == []
    _journal_is_honest(cluster)
    allow = {"setAllowMigrations": "bench.n1", "allowMigrations": True}
    cluster.client.admin.command(allow)
    again = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert again.code == 0, again.err
    assert all(_in_zone(cluster, ns) for ns in EVERY)
    _journal_is_honest(cluster)


def test_a_namespace_dropped_mid_apply_fails_alone_and_its_restore_does_not_crash(
    make_cluster: Make, tmp_path: Path
) -> None:
    # The drop stops migrations first (its DDL coordinator): bench.n2's running move is
    # aborted; its later moves find no sharded collection. Its noBalance restore updates
    # nothing (config.collections no longer has it).
    cluster, policy = _four(make_cluster, tmp_path, "7.0")
    with mid_queue(cluster, lambda: cluster.client.bench.drop_collection("n2")):
        result = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert result.code == 1, result.err
    assert set(_placement(cluster)) == EVERY - {"bench.n2"}
    assert all(_in_zone(cluster, ns) for ns in EVERY - {"bench.n2"})
    failed = [line for line in result.err.splitlines() if line.startswith("zonectl: bench.n2: ")]
    assert len(failed) == 1, result.err
    assert "4 of 4 moves failed: Interrupted: operation was interrupted" in failed[0]
    assert "1 namespace failed, 12 moves of other namespaces completed" in result.err
    assert "Traceback" not in result.err
    assert cluster.state()["noBalance"] == dict.fromkeys(EVERY - {"bench.n2"}, False)
    assert cluster.lease() is None and cluster.open_journals() == []
    _journal_is_honest(cluster)
    recovered = zonectl("recover", "--uri", cluster.uri)
    assert recovered.code == 0, recovered.err
    # The follow-up apply: the drop took bench.n2's zone range with it; the range is
    # written again (for when it is sharded anew), the rest was done.
    again = zonectl("apply", policy, "--uri", cluster.uri, "--yes", "--migrate")
    assert again.code == 0, again.err
    assert "bench.n2 is not sharded: its ranges are planned" in again.err
    _journal_is_honest(cluster)
    follow = zonectl("plan", policy, "--uri", cluster.uri, "--detailed-exitcode")
    assert follow.code == 0, follow.out
