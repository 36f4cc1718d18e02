"""Query sampling's cost on the sandbox's query path, and analyze's command count.

1. Two `zonectl sandbox` processes from the same cluster file, real time, side by side:
   one samples two collections at 50 samples/s each (the server's maximum per collection,
   so 100 samples/s in all), the other samples nothing. The same pymongo client sends
   rounds of point reads to each in turn; prints queries/s of each, the ratio, and the
   samples the sampler took ($currentOp, localOps). Target: sampling adds at most 10 %.
2. `zonectl analyze` (the CLI, in this process) of 20 sampled collections, counting the
   commands it sends with pymongo command monitoring, for two sizes of the samples
   (1 and 5 minutes of a seeded warm-up): the count per collection must not change.

    python benchmarks/bench_sampling.py [--seconds 2] [--rounds 10]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pymongo
from pymongo import monitoring
from typer.testing import CliRunner

SHARDS = """shards:
  - {name: s0}
  - {name: s1}
  - {name: s2}
databases:
  - {name: app, primary: s0}
"""


MIX = "    workload:\n      - {match: key, rate: 30}\n      - {match: field, field: e, rate: 10}\n"


def _cluster(rate: float | None, collections: int = 2, mix: str = "", warmup: str = "0s") -> str:
    """`rate`: each collection's seeded samplesPerSecond (None: not sampled)."""
    text = SHARDS + "collections:\n"
    for i in range(collections):
        text += (
            f"  - ns: app.c{i}\n    key: {{userId: 1}}\n    chunks: 30\n"
            "    keys: {type: int, start: 0, step: 1000}\n"
        )
        if rate is not None:
            text += f"    queryAnalyzer: {{samplesPerSecond: {rate:g}}}\n" + mix
    return text + f"workload: {{warmup: {warmup}}}\n"


def _serve(path: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "zonectl", "sandbox", "--port", "0", "--cluster", str(path),
         "--balancer-interval", "0"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    line = proc.stderr.readline()
    found = re.search(r"(mongodb://\S+)", line)
    if not found:
        proc.kill()
        raise SystemExit(f"zonectl sandbox did not start: {line}")
    return proc, found.group(1)


def _round(client: pymongo.MongoClient[dict[str, Any]], seconds: float) -> float:
    """Point reads on both collections for `seconds`: queries per second."""
    colls = [client.app.c0, client.app.c1]
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        colls[n % 2].find_one({"userId": n % 30_000})
        n += 1
    return n / (time.perf_counter() - start)


def query_path(seconds: float, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        plain, sampled = Path(tmp, "plain.yaml"), Path(tmp, "sampled.yaml")
        plain.write_text(_cluster(None))
        sampled.write_text(_cluster(50))
        procs = []
        try:
            p1, uri_plain = _serve(plain)
            procs.append(p1)
            p2, uri_sampled = _serve(sampled)
            procs.append(p2)
            a = pymongo.MongoClient(uri_plain)
            b = pymongo.MongoClient(uri_sampled)
            time.sleep(6)  # the sampler's first configuration refresh (5 s)
            off, on = [], []
            for _ in range(rounds):  # interleaved, so both see the same machine load
                off.append(_round(a, seconds))
                on.append(_round(b, seconds))
            ops = list(b.admin.aggregate([{"$currentOp": {"allUsers": True, "localOps": True}}]))
            taken = sum(int(o.get("sampledReadsCount", 0)) for o in ops)
            mo, mn = statistics.median(off), statistics.median(on)
            print("1. query path (pymongo find_one over TCP, real time, median of rounds)")
            print(f"   no sampling:          {mo:8.0f} queries/s")
            print(f"   100 samples/s (2x50): {mn:8.0f} queries/s  ({taken} samples taken "
                  "during the run)")  # fmt: skip
            print(f"   cost of sampling: {100 * (mo - mn) / mo:+.1f} % (target <= 10 %)")
        finally:
            for p in procs:
                p.terminate()
                p.wait()


class _Count(monitoring.CommandListener):
    def __init__(self) -> None:
        self.names: list[str] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        self.names.append(event.command_name)

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def analyze_commands() -> None:
    from zonectl.cli.app import app
    from zonectl.cli.commands import register

    if not app.registered_commands:
        register(app)
    print("2. zonectl analyze of 20 sampled collections (commands sent, by pymongo monitoring)")
    listener = _Count()
    monitoring.register(listener)
    with tempfile.TemporaryDirectory() as tmp:
        # The writer flushes every 90 s of sandbox time: 3 and 12 minutes of warm-up.
        for warmup in ("3m", "12m"):
            path = Path(tmp, f"c{warmup}.yaml")
            path.write_text(_cluster(10, collections=20, mix=MIX, warmup=warmup))
            listener.names.clear()
            t0 = time.perf_counter()
            result = CliRunner().invoke(
                app, ["analyze", "--uri", f"sandbox:{path}", "--format", "json"]
            )
            elapsed = time.perf_counter() - t0
            assert result.exit_code == 0, result.stderr
            samples = sum(
                int(re.sub(r"[^0-9]", "", f["value"].split(" sampled")[0]) or 0)
                for c in json.loads(result.stdout)["collections"]
                for f in c["figures"]
                if f["name"] in ("reads", "writes") and " sampled" in f["value"]
            )
            sent = [n for n in listener.names if n not in ("hello", "ismaster", "endSessions")]
            print(f"   warm-up {warmup}: {samples:7,} samples; {len(sent)} commands "
                  f"({len(sent) / 20:.1f} per collection; analyzeShardKey "
                  f"{sent.count('analyzeShardKey')}); {elapsed:.2f} s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    query_path(args.seconds, args.rounds)
    analyze_commands()


if __name__ == "__main__":
    main()
