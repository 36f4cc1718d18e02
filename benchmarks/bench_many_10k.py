"""Issue 41 (item 4): `zonectl plan`, `status` and `explain` at 10,000 collections against 20,
through a latency proxy (benchmarks/latency_proxy.py, 2.5 ms each way: 5 ms round trip).
Goal: plan and status each at most 3x their time at 20 collections.

The cluster is bench_many's (benchmarks/many_kit.py): a 7.0 sandbox in a child process, four
shards (two in zone hot, two in archive), N collections `tenants.t0000`.. of four chunks, one
per shard; the policy pins the even ones to hot and the odd ones to archive. Each command is
run as a user runs it (a subprocess of the CLI), `--repeat` times; printed side by side per
size: the median wall time, zonectl's CPU seconds, the commands the proxy saw by name
(heartbeats apart), and the ratio to the smallest size. The sandbox's own cost is printed
too: how long it took to seed the cluster and to serve each command's reads (its CPU).

    python benchmarks/bench_many_10k.py [--sizes 20 10000] [--delay-ms 2.5] [--repeat 3]
        [--commands plan status explain]
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_many import run, warm
from latency_proxy import LatencyProxy
from many_kit import policy_text, serve_cluster

GOAL = 3.0
GOALS = ("plan", "status")  # the goal; explain is measured beside them
HEARTBEATS = ("hello", "isMaster", "ismaster")
ARGS = {
    "plan": ["plan", "{policy}", "--uri", "{uri}", "--format", "json"],
    "status": ["status", "--uri", "{uri}"],
    "explain": ["explain", "--uri", "{uri}"],
}


def _serve(n: int, pipe: Connection) -> None:
    """The child: seed and serve bench_many's pinned cluster; its CPU seconds on request
    (the process's, every serving thread's)."""
    started = time.process_time()

    class Reporting:
        def send(self, port: int) -> None:
            pipe.send((port, time.process_time() - started))

        def recv(self) -> Any:
            while (asked := pipe.recv()) == "cpu":
                pipe.send(time.process_time())
            return asked

    serve_cluster(n, "pinned", Reporting())  # type: ignore[arg-type]  # a Connection's part


def measure(n: int, delay: float, repeat: int, commands: list[str]) -> dict[str, Any]:
    """Seeding time, and per command: median wall and CPU, the sandbox's CPU, the wire."""
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=_serve, args=(n, child))
    start = time.perf_counter()
    server.start()
    out: dict[str, Any] = {}
    try:
        port, seed_cpu = parent.recv()
        out["seed"] = (time.perf_counter() - start, seed_cpu)
        with (
            LatencyProxy(("127.0.0.1", port), delay) as proxy,
            tempfile.TemporaryDirectory() as tmp,
        ):
            uri = f"mongodb://127.0.0.1:{proxy.port}/"
            policy = Path(tmp) / "policy.yaml"
            policy.write_text(policy_text(n, "pinned"), encoding="utf-8")
            for kind in commands:
                args = [a.format(policy=policy, uri=uri) for a in ARGS[kind]]
                walls, cpus, served = [], [], []
                wire: Counter[str] = Counter()
                for _ in range(repeat):
                    parent.send("cpu")
                    before = parent.recv()
                    wall, cpu, wire, _stdout = run(args, proxy)
                    parent.send("cpu")
                    served.append(parent.recv() - before)
                    walls.append(wall)
                    cpus.append(cpu)
                out[kind] = {
                    "wall": statistics.median(walls),
                    "cpu": statistics.median(cpus),
                    "served": statistics.median(served),
                    "wire": wire,
                }
    finally:
        parent.send("stop")
        server.join(120)
    return out


def _wire_text(wire: Counter[str]) -> str:
    sent = Counter({k: v for k, v in wire.items() if k not in HEARTBEATS})
    return f"{sum(sent.values())} commands {dict(sorted(sent.items()))}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 10000])
    parser.add_argument("--delay-ms", type=float, default=2.5, help="added each way")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--commands", nargs="+", default=list(ARGS), choices=list(ARGS))
    args = parser.parse_args()
    warm()
    print(
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, load "
        f"{os.getloadavg()[0]:.1f}; {2 * args.delay_ms:g} ms round trip; median of "
        f"{args.repeat}"
    )
    results = {n: measure(n, args.delay_ms / 1000, args.repeat, args.commands) for n in args.sizes}
    base = args.sizes[0]
    for n in args.sizes:
        wall, cpu = results[n]["seed"]
        print(
            f"  sandbox {n:>6} collections: seeded and listening in {wall:.2f} s ({cpu:.2f} s CPU)"
        )
    for kind in args.commands:
        for n in args.sizes:
            m = results[n][kind]
            ratio = m["wall"] / results[base][kind]["wall"]
            print(
                f"  zonectl {kind:<7} {n:>6} collections: {m['wall']:7.2f} s ({ratio:5.2f}x); "
                f"CPU {m['cpu']:.2f} s in zonectl, {m['served']:.2f} s in the sandbox; "
                f"{_wire_text(m['wire'])}"
            )
    for kind in args.commands:
        for n in args.sizes[1:]:
            ratio = results[n][kind]["wall"] / results[base][kind]["wall"]
            verdict = ("OK" if ratio <= GOAL else "OVER GOAL") if kind in GOALS else "(no goal)"
            print(
                f"issue 41 {kind} {n}/{base} collections at {2 * args.delay_ms:g} ms RTT: "
                f"{ratio:.2f}x (goal <= {GOAL:g}x) {verdict}"
            )


if __name__ == "__main__":
    main()
