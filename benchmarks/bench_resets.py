"""Issue 31, "a link that resets connections": through a proxy that resets every connection
after 1-4 s (a load balancer's idle timeout on long moves), three runs of `apply --migrate`
once left 20 of 32 chunks unmoved, because one reset ended the whole run. Now a move whose
connection died is looked up (found done, awaited while its migration runs, or sent again),
so each run should converge. Figures, not a timed test: per run, the chunks moved, those
left outside their zone, the resets zonectl counted and what they turned out to be, the
connections the proxy reset, the migrations committed and the follow-up plan's exit code.

The sandbox runs on a real-time clock here (a reset is a real-time event), each move lasting
about --move-s seconds, four namespaces x eight chunks on disjoint shard pairs.

    python benchmarks/bench_resets.py [--runs 3] [--pairs 4] [--chunks 8] [--move-s 2.5]
                                      [--reset 1-4]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

import pymongo
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.clock import Clock
from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox
from zonectl.sandbox.wire.reset_proxy import ResetProxy

if not app.registered_commands:
    register(app)

CHUNK_BYTES = 8 * 1024**2
FIXED_S = 0.9  # the sandbox's fixed migration steps, about (costs.py)
SUMMARY = re.compile(r"(\d+) chunks? moved.*?(?:; (\d+) connection resets? \(([^)]*)\))?;")


def cluster_yaml(pairs: int, chunks: int) -> str:
    shards = "".join(f"  - {{name: s{i}}}\n" for i in range(2 * pairs))
    colls = "".join(
        f"  - {{ns: bench.n{k}, key: {{k: 1}}, chunks: {chunks}, distribution: all-on-one, "
        f"shard: s{2 * k}, keys: {{type: int, start: 0, step: 100}}, "
        f"chunkSize: {{bytes: {CHUNK_BYTES}, docs: 100}}}}\n"
        for k in range(pairs)
    )
    return (
        f'version: "7.0"\nshards:\n{shards}databases:\n  - {{name: bench, primary: s0}}\n'
        f"collections:\n{colls}"
    )


def policy_yaml(pairs: int) -> str:
    shards = "".join(
        f"  s{i}: [Z{i // 2}]\n" if i % 2 else f"  s{i}: []\n" for i in range(2 * pairs)
    )
    colls = "".join(
        f"  bench.n{k}:\n    key: {{k: 1}}\n    ranges:\n"
        f"      - {{zone: Z{k}, min: {{k: {{$minKey: 1}}}}, max: {{k: {{$maxKey: 1}}}}}}\n"
        for k in range(pairs)
    )
    return f"apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n{shards}collections:\n{colls}"


def one_run(tmp: Path, args: argparse.Namespace, run: int) -> str:
    cluster_file, policy = tmp / "cluster.yaml", str(tmp / "policy.yaml")
    sandbox = Sandbox("7.0", clock=Clock())  # real time: the proxy's resets are real
    seed.seed(sandbox, load_cluster_file(cluster_file), str(cluster_file))
    sandbox.balancer.costs.copy_rate = CHUNK_BYTES / max(args.move_s - FIXED_S, 0.05)
    lo, hi = (float(x) for x in args.reset.split("-"))
    server = serve(sandbox)
    try:
        with ResetProxy(("127.0.0.1", int(server.port)), lifetime=(lo, hi), seed=run) as proxy:
            t0 = time.perf_counter()
            cli = CliRunner()
            result = cli.invoke(app, ["apply", policy, "--uri", proxy.uri, "--yes", "--migrate"])
            wall = time.perf_counter() - t0
            cut = proxy.resets
        follow = cli.invoke(app, ["plan", policy, "--uri", server.uri, "--detailed-exitcode"])
        left = sum(
            n
            for k in range(args.pairs)
            for shard, n in (sandbox.cluster.chunks(f"bench.n{k}") or []).chunk_counts().items()
            if shard != f"s{2 * k + 1}"
        )
        with pymongo.MongoClient(server.uri) as client:
            committed = client.config.changelog.count_documents({"what": "moveChunk.commit"})
    finally:
        server.close()
    match = SUMMARY.search(result.stderr)
    moved = int(match.group(1)) if match else 0
    counted = int(match.group(2) or 0) if match else 0
    kinds = (match.group(3) or "-") if match else "-"
    if result.exit_code != 0:
        kinds = result.stderr.strip().splitlines()[-1][:60]
    return (
        f"{run:>3} {result.exit_code:>4} {moved:>6} {left:>5} {counted:>7}  {kinds:<40} "
        f"{cut:>8} {committed:>9} {follow.exit_code:>6} {wall:7.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=4, help="namespaces (1-4)")
    parser.add_argument("--chunks", type=int, default=8, help="chunks per namespace")
    parser.add_argument("--move-s", type=float, default=2.5, help="seconds one move lasts")
    parser.add_argument("--reset", default="1-4", help="connection lifetime range, seconds")
    args = parser.parse_args()
    total = args.pairs * args.chunks
    print(
        f"{args.pairs} namespaces x {args.chunks} chunks ({total}), each move ~{args.move_s}s; "
        f"every connection reset after {args.reset} s (seeded by the run number)"
    )
    print(
        f"{'run':>3} {'exit':>4} {'moved':>6} {'left':>5} {'resets':>7}  {'(what they were)':<40} "
        f"{'proxy':>8} {'committed':>9} {'plan':>6} {'wall s':>7}"
    )
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        (tmp / "cluster.yaml").write_text(cluster_yaml(args.pairs, args.chunks))
        (tmp / "policy.yaml").write_text(policy_yaml(args.pairs))
        for run in range(1, args.runs + 1):
            print(one_run(tmp, args, run), flush=True)
    print(
        "moved/left: chunks moved by the run / left outside their zone after it; resets: "
        "those zonectl counted; proxy: connections the proxy reset (idle ones too); plan: "
        "the follow-up `plan --detailed-exitcode` (0 = converged)"
    )


if __name__ == "__main__":
    main()
