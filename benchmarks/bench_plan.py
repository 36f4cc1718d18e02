"""P1 (ARCHITECTURE.md, "Targets"): plan cost grows with the change, not with the cluster,
timed through the CLI.

Two sandbox clusters with the same shards, zones and ranges, one of 1,000 and one of
1,000,000 chunks, each in its own process (as a mongos is), their chunks where the live
ranges want them (a cluster the balancer has caught up with). Times the command a user
runs, forecast included:

* `zonectl plan POLICY --uri URI` for a policy that adds one ten-chunk range;
* `zonectl rotate POLICY --uri URI --at T --yes` with one firehose window due (the ranges
  are put back between runs, untimed).

Each as a subprocess (interpreter start, imports, connect, read, plan, forecast, output),
and again in this process with imports warm, where pymongo command monitoring counts the
round trips and the documents read (cursor batches) at each size.

    python benchmarks/bench_plan.py [--sizes 1000 1000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import multiprocessing
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pymongo
from bson.max_key import MaxKey
from bson.min_key import MinKey
from pymongo import monitoring
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.catalog.volumes import Disk
from zonectl.sandbox.launch import serve
from zonectl.sandbox.state import Sandbox

NS = "app.events"
FAST, STD = ("shard-fast-0", "shard-fast-1"), ("shard-std-0", "shard-std-1")
T0 = 1_599_998_400  # an hour boundary (2020-09-13T12:00:00Z): firehose chunk bounds start here
STEP = 360  # seconds per firehose chunk: ten chunks per hourly tick


class Counter(monitoring.CommandListener):
    """Round trips (commands sent) and documents returned by find/getMore/aggregate."""

    def __init__(self) -> None:
        self.commands = 0
        self.documents = 0
        self.names: dict[str, int] = {}
        self.micros: dict[str, int] = {}  # round-trip time per command name

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        self.commands += 1
        self.names[event.command_name] = self.names.get(event.command_name, 0) + 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        name = event.command_name
        self.micros[name] = self.micros.get(name, 0) + event.duration_micros
        cursor = event.reply.get("cursor") if isinstance(event.reply, dict) else None
        if isinstance(cursor, dict):
            self.documents += len(cursor.get("firstBatch", cursor.get("nextBatch", [])))

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def plan_cluster(chunks: int) -> tuple[Sandbox, list[tuple[str, Any, Any]]]:
    """Key x; archive below a quarter of the key space on the std shards, hot above three
    quarters on the fast ones, the middle spread over all four."""
    q = chunks // 4
    owners = [
        STD[i % 2] if i < q else FAST[i % 2] if i >= 3 * q else (*FAST, *STD)[i % 4]
        for i in range(chunks)
    ]
    bounds = [{"x": MinKey()}, *({"x": i} for i in range(1, chunks)), {"x": MaxKey()}]
    live = [("archive", {"x": MinKey()}, {"x": q}), ("hot", {"x": 3 * q}, {"x": MaxKey()})]
    return _sandbox({"x": 1}, bounds, owners), live


def rotate_cluster(chunks: int) -> tuple[Sandbox, list[tuple[str, Any, Any]]]:
    """Key ts (epoch seconds), ten chunks an hour; the hot window's boundary one hour
    behind: archive below it on the std shards, hot above on the fast ones."""
    old = {"ts": T0 + (chunks - 100) * STEP}
    bounds = [{"ts": MinKey()}, *({"ts": T0 + i * STEP} for i in range(1, chunks))]
    bounds.append({"ts": MaxKey()})
    owners = [STD[i % 2] if i < chunks - 100 else FAST[i % 2] for i in range(chunks)]
    live = [("archive", {"ts": MinKey()}, old), ("hot", old, {"ts": MaxKey()})]
    return _sandbox({"ts": 1}, bounds, owners), live


def _sandbox(key: dict[str, int], bounds: list[dict[str, Any]], owners: list[str]) -> Sandbox:
    sb = Sandbox("7.0")
    for shard in (*FAST, *STD):
        zone = "hot" if shard in FAST else "archive"
        sb.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", (zone,))
        # Volumes that hold a million 20-60 MiB chunks (the default 1 TiB does not): the
        # disk guard (docs/capacity.md) would rightly refuse the rotation otherwise.
        sb.cluster.volumes.disks[shard] = Disk(size=256 * 2**40, baseline=2**30)
    n = len(owners)  # 20-60 MiB chunks, 1,000 documents each (dataSize has bytes to say)
    sizes = [(20 + (i * 7919) % 41) * 1024 * 1024 for i in range(n)]
    sb.cluster.create_collection(
        NS, key, bounds=bounds, shards=owners, sizes=sizes, counts=[1000] * n
    )
    return sb


def set_ranges(uri: str, ranges: list[tuple[str | None, Any, Any]]) -> None:
    with pymongo.MongoClient(uri) as client:
        for zone, lo, hi in ranges:
            client.admin.command({"updateZoneKeyRange": NS, "min": lo, "max": hi, "zone": zone})


def serve_cluster(kind: str, chunks: int, pipe: Connection) -> None:
    """Child process: serve one cluster, send its URI and live ranges, serve until told."""
    sb, live = (plan_cluster if kind == "plan" else rotate_cluster)(chunks)
    with serve(sb) as server:
        set_ranges(server.uri, list(live))
        gc.collect()
        gc.freeze()
        pipe.send((server.uri, live))
        pipe.recv()


def policy_text(kind: str, chunks: int) -> str:
    head = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n"
    head += "".join(f"  {s}: [hot]\n" for s in FAST) + "".join(f"  {s}: [archive]\n" for s in STD)
    if kind == "rotate":
        return head + (
            f"collections:\n  {NS}:\n    key: {{ts: 1}}\n    firehose:\n      field: ts\n"
            "      type: epochSeconds\n      schedule: '0 * * * *'\n      timezone: UTC\n"
            "      keep: 1\n      hot: hot\n      cold: archive\n"
        )
    q, mid = chunks // 4, chunks // 2
    return head + (
        f"collections:\n  {NS}:\n    key: {{x: 1}}\n    ranges:\n"
        f"      - {{zone: archive, min: {{x: {{$minKey: 1}}}}, max: {{x: {q}}}}}\n"
        f"      - {{zone: hot, min: {{x: {mid}}}, max: {{x: {mid + 10}}}}}\n"
        f"      - {{zone: hot, min: {{x: {3 * q}}}, max: {{x: {{$maxKey: 1}}}}}}\n"
    )


def command(kind: str, chunks: int, policy: Path, uri: str) -> list[str]:
    if kind == "plan":
        return ["plan", str(policy), "--uri", uri]
    at = dt.datetime.fromtimestamp(T0 + (chunks - 90) * STEP + 300, dt.UTC)
    return ["rotate", str(policy), "--uri", uri, "--at", at.isoformat(), "--yes"]


def reset(kind: str, chunks: int, uri: str, live: list[tuple[str, Any, Any]]) -> None:
    """Put the rotated window back one tick (untimed), so the next run is due again."""
    if kind != "rotate":
        return
    new = {"ts": T0 + (chunks - 90) * STEP}
    set_ranges(uri, [(None, {"ts": MinKey()}, new), (None, new, {"ts": MaxKey()})])
    set_ranges(uri, list(live))


def measure(kind: str, chunks: int, repeat: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve_cluster, args=(kind, chunks, child))
    server.start()
    try:
        uri, live = parent.recv()
        built = time.perf_counter() - t0
        with tempfile.TemporaryDirectory() as tmp:
            policy = Path(tmp) / "policy.yaml"
            policy.write_text(policy_text(kind, chunks), encoding="utf-8")
            args = command(kind, chunks, policy, uri)
            walls, warm, out = [], [], ""
            counter = Counter()
            monitoring.register(counter)
            runner = CliRunner()
            for i in range(repeat + 1):  # the first in-process run warms code paths
                reset(kind, chunks, uri, live)
                start = time.perf_counter()
                done = subprocess.run(
                    [sys.executable, "-m", "zonectl", *args], capture_output=True, text=True
                )
                walls.append(time.perf_counter() - start)
                _check(done.returncode, done.stdout + done.stderr)
                out = done.stdout
                reset(kind, chunks, uri, live)
                counter.__init__()  # type: ignore[misc]
                start = time.perf_counter()
                result = runner.invoke(app, args, catch_exceptions=False)
                if i:
                    warm.append(time.perf_counter() - start)
                _check(result.exit_code, result.stdout + result.stderr)
    finally:
        parent.send("stop")
        server.join(60)
    return {
        "built": built,
        "wall": statistics.median(walls[1:] or walls),
        "warm": statistics.median(warm),
        "counter": counter,
        "out": out,
    }


def _check(code: int, text: str) -> None:
    if code != 0:
        raise SystemExit(f"command failed (exit {code}):\n{text[-3000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[1_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=["plan", "rotate"], default=None)
    args = parser.parse_args()
    register(app)
    for kind in ("plan", "rotate"):
        if args.only not in (None, kind):
            continue
        results = []
        for size in args.sizes:
            r = measure(kind, size, args.repeat)
            results.append(r)
            c: Counter = r["counter"]
            summary = next((ln for ln in r["out"].splitlines() if "will migrate" in ln), "")
            print(
                f"  zonectl {kind:<6} {size:>9,} chunks: {r['wall'] * 1000:7.0f} ms as a "
                f"subprocess, {r['warm'] * 1000:6.0f} ms in-process (medians of {args.repeat}; "
                f"cluster built in {r['built']:.0f} s); {c.documents} documents read, "
                f"{c.commands} round trips {dict(sorted(c.names.items()))}"
            )
            if summary:
                print(f"    {summary.strip()}")
            slow = sorted(c.micros.items(), key=lambda kv: -kv[1])[:4]
            print(
                "    round-trip time by command: "
                + ", ".join(f"{k} {v / 1000:.0f} ms" for k, v in slow)
            )
        small, large = results
        for label, key in (("whole command", "wall"), ("in-process", "warm")):
            ratio = large[key] / small[key]
            verdict = "OK" if ratio <= 1.5 else "OVER GOAL"
            print(
                f"P1 {kind} {label} {args.sizes[1]:,}/{args.sizes[0]:,} chunks: {ratio:.2f}x "
                f"(goal <= 1.5x) {verdict}"
            )


if __name__ == "__main__":
    main()
