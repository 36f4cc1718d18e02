"""Issue 16: a policy whose patterns match 10,000 unsharded collections in 100 databases
plans within 1.5x the time of the same policy listing the 10,000 namespaces explicitly, with
at most one listCollections per database. Prints both times, the ratio and the round trips.

The collections live on their database's primary, a shard of the pinned zone, so neither
plan moves anything: what is measured is reading, expanding and planning. Timed is the
command a user runs, `zonectl plan POLICY --format json` as a subprocess (the best of
--repeat runs); the commands are those its JSON states (`server_footprint`); the most
listCollections sent to one database is counted by a listener on one in-process read of
the same policy (untimed), since the footprint counts commands by name only.

    python benchmarks/bench_patterns.py [--databases 100] [--per-db 100] [--version 8.0]
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pymongo import monitoring

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_many import warm

from zonectl.mongo import connect
from zonectl.mongo.resolve import read_resolved
from zonectl.policy import load_policy
from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: [cold]\n  s1: [cold]\n"


class Counter(monitoring.CommandListener):
    def __init__(self) -> None:
        self.sent: collections.Counter[str] = collections.Counter()
        self.per_db: collections.Counter[str] = collections.Counter()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        self.sent[event.command_name] += 1
        if event.command_name == "listCollections":
            self.per_db[event.database_name] += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def cluster_text(databases: int, per_db: int) -> str:
    lines = ["shards:", "  - {name: s0, zones: [cold]}", "  - {name: s1, zones: [cold]}"]
    lines += ["  - {name: s2, zones: [hot]}", "databases:"]
    lines += [f"  - {{name: tenant_{d:03}, primary: s{d % 2}}}" for d in range(databases)]
    lines.append("unsharded:")
    lines += [
        f"  - {{ns: tenant_{d:03}.c{c:04}, bytes: 1048576}}"
        for d in range(databases)
        for c in range(per_db)
    ]
    return "\n".join(lines) + "\n"


def time_plan(uri: str, policy: Path) -> tuple[float, dict[str, int]]:
    """The wall time of `zonectl plan` as a subprocess and the commands its JSON states."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "zonectl", "plan", str(policy), "--uri", uri, "--format", "json"],
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"zonectl plan failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed, dict(json.loads(done.stdout)["server_footprint"]["commands"])


def resolve_once(uri: str, policy: Path) -> tuple[int, int]:
    """The namespaces the policy manages once resolved, and the most listCollections one
    database got meanwhile."""
    counter = Counter()
    with connect(uri, listeners=[counter]) as conn:
        resolved = read_resolved(conn, load_policy([policy]).desired, dt.datetime.now(dt.UTC))
    return len(resolved.desired.collections), max(counter.per_db.values(), default=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", type=int, default=100)
    parser.add_argument("--per-db", type=int, default=100)
    parser.add_argument("--version", default="8.0")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    warm()  # every timed run starts as a user's second run does (bench_many.warm)
    sandbox = Sandbox(args.version)
    text = cluster_text(args.databases, args.per_db)
    seed.seed(sandbox, load_cluster_file("bench.yaml", text), "bench.yaml")
    server = serve(sandbox)
    names = [f"tenant_{d:03}.c{c:04}" for d in range(args.databases) for c in range(args.per_db)]
    with tempfile.TemporaryDirectory() as tmp:
        explicit = Path(tmp) / "explicit.yaml"
        explicit.write_text(
            HEAD + "collections:\n" + "".join(f"  {ns}: {{pin: cold}}\n" for ns in names)
        )
        pattern = Path(tmp) / "pattern.yaml"
        pattern.write_text(HEAD + 'collections:\n  "tenant_*.c*": {pin: cold}\n')
        best: dict[str, tuple[float, dict[str, int]]] = {}
        for _ in range(args.repeat):
            for label, path in (("explicit", explicit), ("pattern", pattern)):
                result = time_plan(server.uri, path)
                if label not in best or result[0] < best[label][0]:
                    best[label] = result
        once = {label: resolve_once(server.uri, path) for label, path in
                (("explicit", explicit), ("pattern", pattern))}  # fmt: skip
    server.close()
    for label in ("explicit", "pattern"):
        (elapsed, sent), (managed, most) = best[label], once[label]
        print(
            f"{label:8}: {elapsed:7.3f} s for `zonectl plan` of {managed} namespaces; "
            f"{sum(sent.values())} commands ({sent.get('listCollections', 0)} "
            f"listCollections, most per database {most})"
        )
    ratio = best["pattern"][0] / best["explicit"][0]
    verdict = "within" if ratio <= 1.5 else "OVER"
    print(f"pattern / explicit = {ratio:.2f} ({verdict} the 1.5x budget)")


if __name__ == "__main__":
    main()
