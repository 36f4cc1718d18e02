"""ARCHITECTURE.md, "Targets": a fleet of 50 clusters plans in at most 3x the time of one.

Starts N sandbox clusters in child processes (each served over TCP, 4 shards, one collection
of 1,000 chunks with two zone ranges), writes an inventory naming them (URIs from
environment variables) and a policy that differs from every cluster by one range, then
times `zonectl plan POLICY --cluster c00` against `zonectl plan POLICY --all`, each run
as the real command in a subprocess (what an operator or CI waits for), forecast included
(each cluster's plan reads only the changed range's chunks, docs/migration.md). Only the
plan runs are timed. It also prints the same pair run in-process with imports warm: with sandboxes
on loopback nothing waits on the network, so that figure is the client's CPU per cluster
under one interpreter lock, which concurrency cannot hide.

    python benchmarks/bench_fleet.py [--clusters 50] [--repeat 3] [--jobs 16]
                                     [--server-processes N]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

from bson.max_key import MaxKey
from bson.min_key import MinKey
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.mongo import connect
from zonectl.sandbox.launch import serve
from zonectl.sandbox.state import Sandbox

NS = "app.events"
CHUNKS = 1_000
SHARDS = {"shard-fast-0": "hot", "shard-fast-1": "hot", "shard-std-0": "archive"}
SHARDS["shard-std-1"] = "archive"
LIVE = [("archive", {"x": MinKey()}, {"x": 250}), ("hot", {"x": 750}, {"x": MaxKey()})]

POLICY = """\
apiVersion: zonectl/v1
kind: ZonePolicy
shards:
  shard-fast-0: [hot]
  shard-fast-1: [hot]
  shard-std-0: [archive]
  shard-std-1: [archive]
collections:
  app.events:
    key: {x: 1}
    ranges:
      - {zone: archive, min: {x: {$minKey: 1}}, max: {x: 250}}
      - {zone: hot, min: {x: 500}, max: {x: 510}}
      - {zone: hot, min: {x: 750}, max: {x: {$maxKey: 1}}}
"""


def build_sandbox() -> Sandbox:
    sb = Sandbox("7.0")
    names = list(SHARDS)
    for shard, zone in SHARDS.items():
        sb.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", (zone,))
    bounds = [{"x": MinKey()}, *({"x": i} for i in range(1, CHUNKS)), {"x": MaxKey()}]
    owners = [names[i % len(names)] for i in range(CHUNKS)]
    sb.cluster.create_collection(NS, {"x": 1}, bounds=bounds, shards=owners)
    return sb


def serve_fleet(n: int, conn: Connection) -> None:
    """Child process: serve n sandboxes, send their URIs, serve until told to stop."""
    with contextlib.ExitStack() as stack:
        uris = []
        for _ in range(n):
            server = stack.enter_context(serve(build_sandbox()))
            with connect(server.uri) as client:
                for zone, lo, hi in LIVE:
                    client.client.admin.command(
                        {"updateZoneKeyRange": NS, "min": lo, "max": hi, "zone": zone}
                    )
            uris.append(server.uri)
        gc.collect()
        gc.freeze()
        conn.send(uris)
        conn.recv()  # stop


def write_inventory(uris: list[str], workdir: Path) -> Path:
    lines = ["apiVersion: zonectl/v1", "kind: ClusterInventory", "clusters:"]
    for i, uri in enumerate(uris):
        os.environ[f"BENCH_FLEET_URI_{i:02d}"] = uri
        lines += [f"  - name: c{i:02d}", f"    uri: {{env: BENCH_FLEET_URI_{i:02d}}}"]
        lines.append(f"    labels: {{shard: s{i % 5}}}")
    inventory = workdir / "clusters.yaml"
    inventory.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return inventory


def time_plan(policy: Path, inventory: Path, selection: list[str], repeat: int) -> float:
    """Median wall time of the real command, `python -m zonectl plan ...`, as run by hand
    or by CI: interpreter start, imports, inventory, policy, every cluster, output."""
    args = ["plan", str(policy), "--inventory", str(inventory), *selection]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "zonectl", *args], capture_output=True, text=True, check=False
        )
        times.append(time.perf_counter() - start)
        _check(result.returncode, result.stdout, result.stderr)
    return statistics.median(times)


def time_plan_in_process(
    policy: Path, inventory: Path, selection: list[str], repeat: int
) -> tuple[float, float]:
    """Median wall and CPU time of the same command run in this process (CliRunner):
    imports warm, so only the per-run work is left."""
    runner = CliRunner()
    args = ["plan", str(policy), "--inventory", str(inventory), *selection]
    walls, cpus = [], []
    for i in range(repeat + 1):  # the first run warms code paths
        start, cpu = time.perf_counter(), time.process_time()
        result = runner.invoke(app, args, catch_exceptions=False)
        if i:
            walls.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
        _check(result.exit_code, result.stdout, result.stderr)
    return statistics.median(walls), statistics.median(cpus)


def _check(code: int, stdout: str, stderr: str) -> None:
    if code != 0 or "+ [{ x: 500 }, { x: 510 })" not in stdout:
        raise SystemExit(f"plan failed (exit {code}):\n{stderr[-2000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=16)
    parser.add_argument("--server-processes", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    register(app)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        # The sandboxes run in other processes, as mongoses would: their work is not billed
        # to the client's interpreter (one GIL for 50 servers and the client would measure
        # the sandbox, not zonectl's concurrency). In a real fleet each mongos has its own
        # machine; here they share --server-processes interpreters (default: one per core).
        pipes, servers = [], []
        per = [args.clusters // args.server_processes] * args.server_processes
        for i in range(args.clusters % args.server_processes):
            per[i] += 1
        for count in per:
            parent, child = multiprocessing.Pipe()
            server = multiprocessing.Process(target=serve_fleet, args=(count, child))
            server.start()
            pipes.append(parent)
            servers.append(server)
        try:
            inventory = write_inventory([u for p in pipes for u in p.recv()], Path(tmp))
            policy = Path(tmp) / "policy.yaml"
            policy.write_text(POLICY, encoding="utf-8")
            print(f"{args.clusters} sandbox clusters started in {time.perf_counter() - t0:.1f} s")
            # Alternated, so a load change on a shared machine hits both sides alike.
            ones, fleets = [], []
            for _ in range(args.repeat):
                ones.append(time_plan(policy, inventory, ["--cluster", "c00"], 1))
                fleets.append(time_plan(policy, inventory, ["--all", "--jobs", str(args.jobs)], 1))
            one, fleet = statistics.median(ones), statistics.median(fleets)
            warm_one = time_plan_in_process(policy, inventory, ["--cluster", "c00"], args.repeat)
            warm_fleet = time_plan_in_process(
                policy, inventory, ["--all", "--jobs", str(args.jobs)], args.repeat
            )
        finally:
            for parent, server in zip(pipes, servers, strict=True):
                parent.send("stop")
                server.join(30)
    ratio = fleet / one
    verdict = "OK" if ratio <= 3 else "OVER GOAL"
    n = args.clusters
    print(f"  zonectl plan --cluster c00:          {one * 1000:6.0f} ms (median of {args.repeat})")
    print(f"  zonectl plan --all --jobs {args.jobs:<3}      {fleet * 1000:6.0f} ms ({n} clusters)")
    print(f"fleet ratio {n}/1 clusters, whole command: {ratio:.2f}x (goal <= 3x) {verdict}")
    (w1, c1), (wn, cn) = warm_one, warm_fleet
    print(
        f"  in-process, imports warm: one {w1 * 1000:.0f} ms (CPU {c1 * 1000:.0f} ms), "
        f"{n} clusters {wn * 1000:.0f} ms (CPU {cn * 1000:.0f} ms): {wn / w1:.2f}x; "
        f"{(cn - c1) / max(n - 1, 1) * 1000:.1f} ms of client CPU per extra cluster"
    )


if __name__ == "__main__":
    main()
