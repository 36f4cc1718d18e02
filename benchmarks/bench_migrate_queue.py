"""P11 (issue 31): one move queue across namespaces. Eight shards, four collections; each
collection's six 64 MiB chunks must go from its own donor to its own recipient (s0->s1,
s2->s3, s4->s5, s6->s7). The shard pairs are disjoint, so all four streams can run at once:
`zonectl apply --migrate`, as a user runs it, should take about the lower bound (one
pair's six migrations end to end at the sandbox's nominal costs), not four times it.
Measured on the sandbox's virtual clock; the forecast is `zonectl plan`'s (JSON), after
`zonectl doctor --probe --teach-rate` taught it the sandbox's rate, as docs/migration.md
tells a user to.

Goals: wall <= 1.3x the lower bound; the forecast within 25 % of the wall.

    python benchmarks/bench_migrate_queue.py [--chunks 6] [--chunk-mib 64] [--pairs 4]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.forecast.units import format_duration
from zonectl.sandbox.balancer.costs import MigrationCosts
from zonectl.sandbox.clock import Clock
from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

SHARDS = [f"s{i}" for i in range(8)]
MIB = 1024**2
# This host's now: doctor checks the cluster clock against it, and zonectl learns from the
# changelog entries of the last 30 days before it.
START = dt.datetime.now(dt.UTC).replace(microsecond=0)


def cluster_yaml(pairs: int, chunks: int, chunk_bytes: int) -> str:
    colls = "".join(
        f"""  - ns: bench.n{k}
    key: {{k: 1}}
    chunks: {chunks}
    keys: {{type: int, start: 0, step: 1000}}
    distribution: all-on-one
    shard: s{2 * k}
    chunkSize: {{bytes: {chunk_bytes}, docs: 1000}}
"""
        for k in range(pairs)
    )
    shards = "\n".join(f"  - {{name: {s}}}" for s in SHARDS)
    return f"""version: "7.0"
shards:
{shards}
databases:
  - {{name: bench, primary: s0}}
collections:
{colls}"""


def policy_yaml(pairs: int) -> str:
    shards = "\n".join(
        f"  {s}: [Z{i // 2}]" if i % 2 and i // 2 < pairs else f"  {s}: []"
        for i, s in enumerate(SHARDS)
    )
    colls = "".join(
        f"""  bench.n{k}:
    key: {{k: 1}}
    ranges:
      - {{zone: Z{k}, min: {{k: {{$minKey: 1}}}}, max: {{k: {{$maxKey: 1}}}}}}
"""
        for k in range(pairs)
    )
    return f"""apiVersion: zonectl/v1
kind: ZonePolicy
shards:
{shards}
collections:
{colls}"""


def zonectl(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    if result.exit_code != 0:
        raise SystemExit(
            f"zonectl {' '.join(args)} failed ({result.exit_code}): {result.stdout}{result.stderr}"
        )
    return result


def lower_bound_s(sandbox: Sandbox, chunks: int, chunk_bytes: int) -> float:
    """One pair's migrations end to end at the sandbox's nominal costs (no jitter): each
    shard takes part in one migration at a time (active_migrations_registry.cpp), and the
    pairs share no shard, so no schedule ends sooner."""
    real = sandbox.balancer.costs
    nominal = MigrationCosts(
        real.copy_rate, dict(real.shard_rates), per_document_s=real.per_document_s
    )
    one = nominal.migration("s0", "s1", chunk_bytes, 1000).duration.total_seconds()
    return chunks * one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=6, help="moves per namespace")
    parser.add_argument("--chunk-mib", type=int, default=64)
    parser.add_argument("--pairs", type=int, default=4, help="namespaces (1-4)")
    args = parser.parse_args()
    chunk_bytes = args.chunk_mib * MIB
    with tempfile.TemporaryDirectory() as tmp:
        cluster_file, policy = Path(tmp) / "cluster.yaml", Path(tmp) / "policy.yaml"
        cluster_file.write_text(cluster_yaml(args.pairs, args.chunks, chunk_bytes))
        policy.write_text(policy_yaml(args.pairs))
        sandbox = Sandbox("7.0", clock=Clock.virtual(START))
        seed.seed(sandbox, load_cluster_file(cluster_file), str(cluster_file))
        server = serve(sandbox)
        try:
            zonectl("doctor", "--uri", server.uri, "--probe", "--teach-rate")
            at = sandbox.clock.now().isoformat()
            plan = zonectl("plan", str(policy), "--uri", server.uri, "-f", "json", "--at", at)
            fc = json.loads(plan.stdout)["forecast"]
            t0, real0 = sandbox.clock.now(), time.perf_counter()
            zonectl("apply", str(policy), "--uri", server.uri, "--migrate", "--yes")
            wall = (sandbox.clock.now() - t0).total_seconds()
            real = time.perf_counter() - real0
            left = sum(
                1
                for k in range(args.pairs)
                for shard in (sandbox.cluster.chunks(f"bench.n{k}") or []).chunk_counts()
                if shard != f"s{2 * k + 1}"
            )
            bound = lower_bound_s(sandbox, args.chunks, chunk_bytes)
        finally:
            server.close()
    forecast_s = float(fc["migrate"]["seconds"])
    x_bound, err = wall / bound, forecast_s / wall - 1
    ok = left == 0 and x_bound <= 1.3 and abs(err) <= 0.25
    print(f"{'namespaces x moves':20} {'bound':>8} {'wall':>8} {'x bound':>8} "
          f"{'forecast':>9} {'err':>7} {'cost':>8} {'real s':>7}")  # fmt: skip
    print(
        f"{f'{args.pairs} x {args.chunks} x {args.chunk_mib}MiB':20} {format_duration(bound):>8} "
        f"{format_duration(wall):>8} {x_bound:8.3f} {format_duration(forecast_s):>9} "
        f"{err:+7.1%} {fc['cost']['source']:>8} {real:7.1f}"
    )
    print(
        f"{len(SHARDS)} shards, pairs s0->s1 .. s6->s7; goals (P11): wall <= 1.3x the lower "
        f"bound, forecast within 25% of the wall; chunks left outside their zone: {left}: "
        f"{'MET' if ok else 'NOT MET'}"
    )


if __name__ == "__main__":
    main()
