"""P5/P6 (issue 10): time to compliance in simulated time, side by side in one run.

P5: 8 shards, zones A (s0-s3) and B (s4-s7); a policy change swaps the middle quarters of
the key space between the zones, so half the data (>= 50 GiB) sits in the wrong zone and
every shard both gives and takes. Measured on the sandbox's virtual clock from the same
start: `zonectl apply --migrate` (parallel, default N = shards) against the lower bound
(the busiest shard's bytes to send and receive / copy rate: a shard takes part in one
migration at a time), and against the sandbox
balancer alone (rounds in virtual time: `run_rounds_until`).
P6: `zonectl plan`'s forecast (JSON) of both routes against those simulated outcomes, for
the P5 case and for a slower copy rate whose balancer window (01:00-02:00) closes and
reopens the next night before compliance.

    python benchmarks/bench_migrate.py [--chunks 2400] [--chunk-mib 32]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.forecast.units import format_duration, parse_rate
from zonectl.sandbox.balancer import view
from zonectl.sandbox.balancer.main_loop import run_rounds_until
from zonectl.sandbox.clock import Clock
from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

NS = "bench.data"
SHARDS = [f"s{i}" for i in range(8)]
START = dt.datetime(2026, 3, 2, 0, 0, tzinfo=dt.UTC)
MIB = 1024**2


@dataclass(frozen=True)
class Case:
    name: str
    slug: str
    copy_rate: str
    window: tuple[str, str] | None


def cluster_yaml(chunks: int, chunk_bytes: int) -> str:
    half = chunks // 2
    shards = "\n".join(
        f"  - {{name: {s}, zones: [{'A' if i < 4 else 'B'}]}}" for i, s in enumerate(SHARDS)
    )
    return f"""version: "7.0"
shards:
{shards}
databases:
  - {{name: bench, primary: s0}}
collections:
  - ns: {NS}
    key: {{k: 1}}
    chunks: {chunks}
    keys: {{type: int, start: 0, step: 1000}}
    chunkSize: {{bytes: {chunk_bytes}, docs: 1000}}
zones:
  - {{ns: {NS}, min: {{k: {{$minKey: 1}}}}, max: {{k: {half * 1000}}}, zone: A}}
  - {{ns: {NS}, min: {{k: {half * 1000}}}, max: {{k: {{$maxKey: 1}}}}, zone: B}}
"""


def policy_yaml(chunks: int, window: tuple[str, str] | None) -> str:
    q = chunks // 4 * 1000
    active = f'{{start: "{window[0]}", stop: "{window[1]}"}}' if window else "null"
    balancer = f"balancer:\n  enabled: true\n  activeWindow: {active}\n"
    shards = "\n".join(f"  {s}: [{'A' if i < 4 else 'B'}]" for i, s in enumerate(SHARDS))
    return f"""apiVersion: zonectl/v1
kind: ZonePolicy
{balancer}shards:
{shards}
collections:
  {NS}:
    key: {{k: 1}}
    ranges:
      - {{zone: A, min: {{k: {{$minKey: 1}}}}, max: {{k: {q}}}}}
      - {{zone: B, min: {{k: {q}}}, max: {{k: {2 * q}}}}}
      - {{zone: A, min: {{k: {2 * q}}}, max: {{k: {3 * q}}}}}
      - {{zone: B, min: {{k: {3 * q}}}, max: {{k: {{$maxKey: 1}}}}}}
"""


def make_sandbox(cluster_file: Path, rate: float, median_bytes: int) -> Sandbox:
    """The seeded cluster with skewed chunk sizes, as real ones are (many small chunks,
    a few near the 128 MiB maximum): log-normal around `median_bytes`, clipped to
    1 MiB..128 MiB, seeded so every run and both routes see the same sizes."""
    sandbox = Sandbox("7.0", clock=Clock.virtual(START))
    seed.seed(sandbox, load_cluster_file(cluster_file), str(cluster_file))
    sandbox.balancer.copy_rate = rate
    store = sandbox.cluster.chunks(NS)
    assert store is not None
    rng = random.Random(10)
    for i in range(len(store)):
        size = int(min(128 * MIB, max(MIB, median_bytes * rng.lognormvariate(0, 1))))
        store.set_size(i, size, max(1, size // 1024))
    return sandbox


def outside_zone(sandbox: Sandbox) -> int:
    cluster = sandbox.cluster
    settings = sandbox.balancer.current_settings()
    coll = view.collection_view(cluster, NS, settings)
    assert coll is not None
    zones = {s.id: s.zones for s in view.shard_views(cluster)}
    return sum(
        1
        for shard, zone in zip(coll.shards, coll.zones, strict=True)
        if zone and zone not in zones[shard]
    )


def lower_bound_s(sandbox: Sandbox, rate: float) -> tuple[float, int, int]:
    """The busiest shard's bytes to send and receive / rate (a shard takes part in one
    migration at a time: active_migrations_registry.cpp), the moving bytes, chunks."""
    cluster = sandbox.cluster
    store = cluster.chunks(NS)
    assert store is not None
    coll = view.collection_view(cluster, NS, sandbox.balancer.current_settings())
    assert coll is not None
    zones = {s.id: s.zones for s in view.shard_views(cluster)}
    work: dict[str, float] = {}  # bytes to send + an even share of what its zone receives
    total = count = 0
    for i, (shard, zone) in enumerate(zip(coll.shards, coll.zones, strict=True)):
        if zone and zone not in zones[shard]:
            size = store.size_at(i)
            work[shard] = work.get(shard, 0) + size
            holders = [s for s, zs in zones.items() if zone in zs]
            for h in holders:
                work[h] = work.get(h, 0) + size / len(holders)
            total, count = total + size, count + 1
    return max(work.values()) / rate, total, count


def zonectl(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    if result.exit_code != 0:
        raise SystemExit(f"zonectl {' '.join(args)} failed: {result.stderr}")
    return result


def run_case(case: Case, chunks: int, chunk_bytes: int, tmp: Path) -> dict[str, Any]:
    rate = parse_rate(case.copy_rate)
    cluster_file = tmp / f"{case.slug}-cluster.yaml"
    cluster_file.write_text(cluster_yaml(chunks, chunk_bytes))
    policy = tmp / f"{case.slug}-policy.yaml"
    policy.write_text(policy_yaml(chunks, case.window))
    rate_flag = ["--copy-rate", case.copy_rate]

    # Route 1: apply --migrate (the forecast is read first, from the same start).
    sandbox = make_sandbox(cluster_file, rate, chunk_bytes)
    server = serve(sandbox)
    try:
        at = ["--at", START.isoformat()]  # the forecast starts at the sandbox's clock
        plan = zonectl("plan", str(policy), "--uri", server.uri, "-f", "json", *rate_flag, *at)
        forecast = json.loads(plan.stdout)["forecast"]
        t0, real0 = sandbox.clock.now(), time.perf_counter()
        zonectl("apply", str(policy), "--uri", server.uri, "--migrate", "--yes")
        eager_s = (sandbox.clock.now() - t0).total_seconds()
        eager_real = time.perf_counter() - real0
        left_eager = outside_zone(sandbox)
    finally:
        server.close()

    # Route 2: the same start, ranges applied, then the sandbox balancer alone.
    sandbox = make_sandbox(cluster_file, rate, chunk_bytes)
    server = serve(sandbox)
    try:
        zonectl("apply", str(policy), "--uri", server.uri, "--yes")
        bound_s, moving, count = lower_bound_s(sandbox, rate)
        t0 = sandbox.clock.now()
        done = run_rounds_until(
            sandbox.balancer, lambda: outside_zone(sandbox) == 0, limit=dt.timedelta(days=10)
        )
        balancer_s = (done - t0).total_seconds() if done else float("inf")
    finally:
        server.close()
    return {
        "case": case,
        "bytes": moving,
        "chunks": count,
        "bound": bound_s,
        "eager": eager_s,
        "eager_real": eager_real,
        "left": left_eager,
        "balancer": balancer_s,
        "f_eager": forecast["migrate"]["seconds"],
        "f_balancer": forecast["balancer"]["seconds"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=2400)
    parser.add_argument("--chunk-mib", type=int, default=32, help="median chunk size")
    args = parser.parse_args()
    cases = [
        Case("P5 swap, 16MiB/s", "p5", "16MiB/s", None),
        Case("window 01-02h, 4MiB/s", "win", "4MiB/s", ("01:00", "02:00")),
    ]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            rows.append(run_case(case, args.chunks, args.chunk_mib * 1024**2, Path(tmp)))
    print(f"{'case':24} {'moving':>10} {'bound':>9} {'migrate':>9} {'x bound':>8} "
          f"{'balancer':>10} {'mig/bal':>8} {'fc mig':>9} {'err':>6} {'fc bal':>10} {'err':>6}"
          f" {'real s':>7}")  # fmt: skip
    ok = True
    for r in rows:
        x_bound = r["eager"] / r["bound"]
        ratio = r["eager"] / r["balancer"]
        err_e = r["f_eager"] / r["eager"] - 1
        err_b = r["f_balancer"] / r["balancer"] - 1 if r["f_balancer"] else float("nan")
        print(
            f"{r['case'].name:24} {r['bytes'] / 1024**3:7.1f}GiB {format_duration(r['bound']):>9} "
            f"{format_duration(r['eager']):>9} {x_bound:8.3f} "
            f"{format_duration(r['balancer']):>10} {ratio:8.3f} "
            f"{format_duration(r['f_eager']):>9} {err_e:+6.1%} "
            f"{format_duration(r['f_balancer'] or 0):>10} {err_b:+6.1%} {r['eager_real']:7.1f}"
        )
        ok &= r["left"] == 0 and abs(err_e) <= 0.15 and abs(err_b) <= 0.15
        if r["case"].window is None:
            ok &= x_bound <= 1.15 and ratio <= 0.5
    print(
        f"{len(SHARDS)} shards; goals: P5 migrate <= 1.15x bound and <= 0.5x balancer; "
        f"P6 forecast within +-15% for both routes: {'MET' if ok else 'NOT MET'}"
    )


if __name__ == "__main__":
    main()
