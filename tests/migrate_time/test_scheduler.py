"""The parallel scheduler's invariants: never two running moves sharing a shard (donor or
recipient), never more than --parallel at once, every destination carries the chunk's
zone, and everything finishes whatever order the moves commit in; and the same on a live
sandbox, read back from config.changelog."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from six_shards import CLUSTER, POLICY
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.forecast.eager import Dispatcher, PendingMove

if not app.registered_commands:
    register(app)

SHARDS = ["a", "b", "c", "d", "e", "f"]
ZONES = {"x": ("a", "b", "c"), "y": ("d", "e", "f")}
NAMESPACES = ("db.c", "db.d", "shop.e")


@st.composite
def workloads(draw: Any) -> tuple[list[PendingMove], int, int]:
    n = draw(st.integers(1, 40))
    moves = []
    for i in range(n):
        zone = draw(st.sampled_from(sorted(ZONES)))
        other = "y" if zone == "x" else "x"
        donor = draw(st.sampled_from(ZONES[other]))
        ns = draw(st.sampled_from(NAMESPACES))  # one queue across namespaces
        moves.append(PendingMove(ns, i, donor, ZONES[zone], draw(st.integers(1, 10**9))))
    return moves, draw(st.integers(1, 6)), draw(st.integers(0, 2**31))


@settings(max_examples=150, deadline=None)
@given(workloads())
def test_running_moves_never_share_a_shard_nor_exceed_parallel(
    case: tuple[list[PendingMove], int, int],
) -> None:
    moves, parallel, seed = case
    rng = random.Random(seed)
    d = Dispatcher(moves, {ns: dict.fromkeys(SHARDS, 0) for ns in NAMESPACES}, parallel)
    done = 0
    while not d.finished:
        d.next_moves()
        shards = [s for r in d.running for s in (r.move.donor, r.to)]
        assert len(shards) == len(set(shards))  # disjoint pairs
        assert 0 < len(d.running) <= parallel
        for r in d.running:
            assert r.to in r.move.holders and r.to != r.move.donor
        d.done(rng.choice(d.running), ok=rng.random() > 0.1)
        done += 1
    assert done == len(moves)


def test_the_largest_chunk_of_the_busiest_donor_goes_first() -> None:
    moves = [
        PendingMove("db.c", 0, "a", ("d",), 10),
        PendingMove("db.c", 1, "b", ("e",), 5),
        PendingMove("db.c", 2, "b", ("e",), 50),
        PendingMove("db.c", 3, "b", ("e",), 7),
    ]
    d = Dispatcher(moves, {"db.c": dict.fromkeys(SHARDS, 0)}, 1)
    assert [s.move.index for s in d.next_moves()] == [2]


def test_destinations_keep_the_zone_even() -> None:
    moves = [PendingMove("db.c", i, "a", ("d", "e"), 10) for i in range(6)]
    d = Dispatcher(moves, {"db.c": {"a": 60, "d": 0, "e": 0}}, 1)
    while not d.finished:
        for s in d.next_moves():
            d.done(s)
    assert d.loads["db.c"]["d"] == d.loads["db.c"]["e"] == 30


def test_namespaces_on_disjoint_shard_pairs_move_at_once_busiest_donor_first() -> None:
    pairs = {"app.a": ("s0", "s1"), "app.b": ("s2", "s3"), "app.c": ("s4", "s5")}
    moves = [
        PendingMove(ns, i, donor, (to,), (3 if ns == "app.b" else 1) * 10)
        for ns, (donor, to) in pairs.items()
        for i in range(2 + (ns == "app.c"))
    ]
    loads = {ns: {donor: 100, to: 0} for ns, (donor, to) in pairs.items()}
    assert [s.move.ns for s in Dispatcher(moves, loads, 2).next_moves()] == ["app.b", "app.c"]
    first = Dispatcher(moves, loads, 6).next_moves()  # more than the 3 pairs: capped by them
    assert sorted((s.move.ns, s.move.donor, s.to) for s in first) == sorted(
        (ns, donor, to) for ns, (donor, to) in pairs.items()
    )


@pytest.mark.parametrize("parallel", ["2", "3"])
def test_apply_migrate_runs_moves_in_parallel_over_disjoint_shards(
    tmp_path: Path, parallel: str
) -> None:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "policy.yaml").write_text(POLICY)
    state = tmp_path / "state.json"
    uri = f"sandbox:{tmp_path / 'cluster.yaml'}?state={state}"
    args = ["apply", str(tmp_path / "policy.yaml"), "--uri", uri, "--yes", "--migrate"]
    result = CliRunner().invoke(app, [*args, "--parallel", parallel], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert "12 chunks moved, 0 skipped, 0 left" in result.stderr
    # The state file holds config.changelog: each move's start and commit on the clock.
    from zonectl.sandbox import uri as sandbox_uri

    with sandbox_uri.start(uri) as handle:
        log = list(handle.sandbox.cluster.coll("config.changelog"))
    spans: dict[str, list[Any]] = {}
    for doc in log:
        if doc["what"] in ("moveChunk.start", "moveChunk.commit"):
            spans.setdefault(str(doc["details"]["min"]), []).append(doc)
    intervals = []
    for docs in spans.values():
        start = next(d for d in docs if d["what"] == "moveChunk.start")
        commit = next(d for d in docs if d["what"] == "moveChunk.commit")
        shards = {start["details"]["from"], start["details"]["to"]}
        intervals.append((start["time"], commit["time"], shards))
    assert len(intervals) == 12
    most = 0
    for t0, _t1, _shards in intervals:
        running = [iv for iv in intervals if iv[0] <= t0 < iv[1]]
        most = max(most, len(running))
        used = [s for iv in running for s in iv[2]]
        assert len(used) == len(set(used)), "two running migrations share a shard"
    assert most == int(parallel)
