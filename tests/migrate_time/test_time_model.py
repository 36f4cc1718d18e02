"""The sandbox's time model: every migration takes MongoDB's steps of sandbox time (fixed
steps, then its bytes at the copy rate), a manual move blocks until it committed, and on a
virtual clock the wait moves simulated time, never real seconds (over TCP with real
pymongo). The step timings and traces are in test_migration_traces.py."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from bson import MaxKey, MinKey
from pymongo.errors import ExecutionTimeout, OperationFailure

from zonectl.errors import UsageError
from zonectl.sandbox import uri as sandbox_uri
from zonectl.sandbox.clock import Clock
from zonectl.sandbox.seed.schema import SeedError, load_cluster_file
from zonectl.sandbox.state import Sandbox

T0 = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
MIB = 1024 * 1024
NS = "app.c"
# chunk 0 [MinKey,100) 64 MiB on s0; 1 [100,200) 4 MiB on s0; 2 [200,300) 32 MiB on s1;
# 3 [300,MaxKey) 16 MiB on s2; s3 holds nothing.
BOUNDS = [{"x": MinKey()}, {"x": 100}, {"x": 200}, {"x": 300}, {"x": MaxKey()}]


def make(sandbox_server: Any, version: str = "7.0", *, rate: float = 16 * MIB) -> Any:
    sb = Sandbox(version, clock=Clock.virtual(T0))
    for i in range(4):
        sb.cluster.add_shard(f"s{i}", f"rs{i}/h{i}:27018")
    sb.cluster.create_collection(
        NS,
        {"x": 1},
        bounds=BOUNDS,
        shards=["s0", "s0", "s1", "s2"],
        sizes=[64 * MIB, 4 * MIB, 32 * MIB, 16 * MIB],
        counts=[1000, 100, 500, 200],
    )
    sb.balancer.copy_rate = rate
    return sandbox_server(sandbox=sb)


def elapsed(h: Any) -> float:
    return (h.sandbox.clock.now() - T0).total_seconds()


def move(h: Any, lo: int | None, hi: int | None, to: str, **extra: Any) -> Any:
    lo_doc = {"x": lo if lo is not None else MinKey()}
    hi_doc = {"x": hi if hi is not None else MaxKey()}
    cmd = {"moveChunk": NS, "bounds": [lo_doc, hi_doc], "to": to, **extra}
    return h.client.admin.command(cmd)


def shard_of(h: Any, lo: int | None) -> str:
    store = h.sandbox.cluster.chunks(NS)
    return str(store.shard_at(store.find({"x": lo if lo is not None else MinKey()})))


def from_steps_s(h: Any) -> list[float]:
    """Each moveChunk.from entry's total (its step timings, seconds), oldest first."""
    entries = h.client.config.changelog.find({"what": "moveChunk.from"}).sort("time", 1)
    return [sum(v for k, v in e["details"].items() if k.startswith("step ")) / 1000
            for e in entries]  # fmt: skip


def test_a_manual_move_takes_its_bytes_over_the_copy_rate_plus_the_fixed_steps(
    sandbox_server: Any, server_version: str
) -> None:
    h = make(sandbox_server, server_version, rate=16 * MIB)
    move(h, None, 100, "s3")  # 64 MiB at 16 MiB/s: 4 s of cloning
    (total,) = from_steps_s(h)
    assert elapsed(h) == pytest.approx(total, abs=0.01)  # the donor's steps, end to end
    assert 4.0 + 0.5 < elapsed(h) < 4.0 * 1.05 + 1.5  # the copy, and a fixed part of ~1 s
    assert shard_of(h, None) == "s3"  # the reply came after the commit


def test_a_small_move_still_pays_the_fixed_steps(sandbox_server: Any) -> None:
    h = make(sandbox_server, rate=16 * MIB)
    move(h, 100, 200, "s3")  # 4 MiB: 0.25 s of copying
    assert 0.25 + 0.5 < elapsed(h) < 0.25 + 1.5


def test_serial_moves_add_up_in_simulated_time(sandbox_server: Any) -> None:
    h = make(sandbox_server, rate=32 * MIB)
    move(h, None, 100, "s3")
    move(h, 200, 300, "s3")
    move(h, 300, None, "s0")
    assert len(from_steps_s(h)) == 3
    assert elapsed(h) == pytest.approx(sum(from_steps_s(h)), abs=0.01)


def test_a_move_conflicting_with_a_migration_in_flight_fails_on_either_side(
    sandbox_server: Any,
) -> None:
    h = make(sandbox_server)
    # A balancer migration in flight from s0 (nothing waits on it, so time stands still).
    h.sandbox.balancer.active.register(_flight(h, 0, "s3"))
    with pytest.raises(OperationFailure) as donor:
        move(h, 100, 200, "s1")  # s0 is donating
    assert donor.value.code == 117 and "currently donating" in str(donor.value)
    with pytest.raises(OperationFailure) as recipient:
        move(h, 300, None, "s3")  # s3 is receiving
    assert recipient.value.code == 117 and "currently receiving" in str(recipient.value)
    with pytest.raises(OperationFailure) as receiving_donor:
        move(h, 200, 300, "s0")  # s0 may not receive while it donates
    assert receiving_donor.value.code == 117


def test_an_identical_request_joins_the_running_migration(sandbox_server: Any) -> None:
    h = make(sandbox_server, rate=16 * MIB)
    flight = _flight(h, 0, "s3")
    h.sandbox.balancer.active.register(flight)
    move(h, None, 100, "s3")  # joins: returns when that migration commits, at its due time
    assert h.sandbox.clock.now() == flight.due
    assert shard_of(h, None) == "s3"


def test_max_time_ms_runs_out_in_simulated_time_and_the_migration_still_commits(
    sandbox_server: Any,
) -> None:
    h = make(sandbox_server, rate=1 * MIB)  # 64 s for chunk 0
    with pytest.raises(ExecutionTimeout):
        move(h, None, 100, "s3", maxTimeMS=2000)
    assert elapsed(h) == pytest.approx(2.0, abs=0.05)
    assert shard_of(h, None) == "s0"  # still copying
    h.sandbox.balancer.complete_migrations()
    assert shard_of(h, None) == "s3"


def test_balancer_migrations_use_the_same_cost_model(sandbox_server: Any) -> None:
    h = make(sandbox_server, "5.0", rate=8 * MIB)
    result = h.sandbox.balancer.run_round()  # s0 holds 2 chunks, s3 none: one moves
    assert result.migrations
    for mig in result.migrations:
        size = h.sandbox.cluster.chunks(NS).size_at(
            h.sandbox.cluster.chunks(NS).index_of_min(mig.min)
        )
        seconds = (mig.due - mig.started).total_seconds()
        assert size / (8 * MIB) + 0.5 < seconds < size / (8 * MIB) * 1.05 + 1.5


def test_config_migrations_holds_a_document_while_a_balancer_migration_is_in_flight(
    sandbox_server: Any,
) -> None:
    h = make(sandbox_server, "5.0")  # 4.4-6.x keep config.migrations (reference §2.6)
    result = h.sandbox.balancer.run_round()
    assert result.migrations
    assert h.client.config.migrations.count_documents({}) == len(result.migrations)
    assert h.client.admin.command("balancerStatus")["inBalancerRound"] is True
    h.sandbox.balancer.complete_migrations()
    assert h.client.config.migrations.count_documents({}) == 0
    assert h.client.admin.command("balancerStatus")["inBalancerRound"] is False


def test_the_copy_rate_is_a_uri_option_and_a_cluster_file_field(tmp_path: Path) -> None:
    assert sandbox_uri.parse("sandbox:?copyRate=40MiB/s").copy_rate == 40 * MIB
    with pytest.raises(UsageError, match="copyRate"):
        sandbox_uri.parse("sandbox:?copyRate=fast")
    path = tmp_path / "c.yaml"
    path.write_text("shards:\n  - {name: a}\nbalancer:\n  copyRate: -3MB/s\n")
    with pytest.raises(SeedError, match=r"c.yaml:4:\d+: field 'balancer.copyRate'"):
        load_cluster_file(path)
    path.write_text("shards:\n  - {name: a}\nbalancer:\n  copyRate: 10MiB/s\n")
    with sandbox_uri.start(f"sandbox:{path}") as handle:
        assert handle.sandbox.balancer.copy_rate == 10 * MIB
        assert handle.sandbox.clock.frozen  # `sandbox:` URIs run in virtual time


def test_a_time_scaled_clock_runs_simulated_seconds_faster_than_real_ones() -> None:
    clock = Clock(scale=3600)
    assert not clock.frozen
    assert clock.real_seconds(3600) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        Clock(scale=0)


def _flight(h: Any, i: int, to: str) -> Any:
    from zonectl.sandbox.balancer.migrations import InFlight

    store = h.sandbox.cluster.chunks(NS)
    now = h.sandbox.clock.now()
    donor = store.shard_at(i)
    cost = h.sandbox.balancer.migration_cost(donor, to, store.size_at(i), store.count_at(i))
    due = now + cost.duration
    return InFlight(NS, store.min_at(i), store.max_at(i), donor, to, "t", now, due, cost=cost)


def test_the_sandbox_clock_starts_where_the_uri_says(tmp_path: Path) -> None:
    """`now=` pins a sandbox's virtual clock (benchmarks/doc_pictures.py runs the demo at
    one instant, so its pictures print the same every day); it needs an offset."""
    at = dt.datetime(2026, 11, 23, 17, 1, tzinfo=dt.UTC)
    with sandbox_uri.start("sandbox:?now=2026-11-23T17:01:00Z") as handle:
        assert handle.sandbox.clock.frozen and handle.sandbox.clock.now() == at
    with sandbox_uri.start("sandbox:?now=2026-11-23T18:01:00%2B01:00") as handle:
        assert handle.sandbox.clock.now() == at
    for bad, why in (("yesterday", "not an ISO 8601 instant"), ("2026-11-23T17:01", "offset")):
        with pytest.raises(UsageError, match=f"now={bad!r}.*{why}"):
            sandbox_uri.parse(f"sandbox:?now={bad}")
