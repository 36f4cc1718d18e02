"""P12 (ARCHITECTURE.md, "Targets"): round trips do not grow with the number of namespaces.
Over a latency proxy that adds 2.5 ms each way (benchmarks/latency_proxy.py: a mongos in
another zone), the whole `zonectl plan` of a policy that pins 1,000 collections (4 chunks
each) runs within 3x the same plan for 20.

A sandbox (7.0, four shards: two in zone hot, two in archive) in a child process holds N
sharded collections `tenants.t0000`.. of four chunks, one per shard; the policy pins the
even ones to hot and the odd ones to archive, so each plans one range and two chunk moves.
Times the command a user runs, as a subprocess through the proxy, and prints the commands
it sent by name: as the proxy saw them on the wire, and as the plan's JSON states them
(`server_footprint`). `status` is timed the same way, and `rotate` (cron's run with nothing
due: each collection's firehose window already in place) on a cluster of its own.

    python benchmarks/bench_many.py [--sizes 20 1000] [--delay-ms 2.5] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency_proxy import LatencyProxy
from many_kit import AT, policy_text, serve_cluster

GOAL = 3.0


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def warm() -> None:
    """zonectl's modules compiled into their __pycache__, as a user's first run leaves them
    (untimed): every timed run then starts as a user's second run does, even where
    PYTHONDONTWRITEBYTECODE is set (this machine sets it: compiling the 460 modules took
    about 0.2 s of every run, at any size, as docs/performance.md says)."""
    package = Path(__file__).resolve().parents[1] / "zonectl"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


def run(args: list[str], proxy: LatencyProxy) -> tuple[float, float, Counter[str], str]:
    """Wall time, the command's CPU seconds (on a shared machine the wall time includes
    waiting for a core), the commands it sent, its stdout."""
    before = Counter(proxy.commands)
    cpu = _child_cpu()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "zonectl", *args], capture_output=True, text=True)
    wall = time.perf_counter() - start
    cpu = _child_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"zonectl {args[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    sent = Counter(proxy.commands)
    sent.subtract(before)
    return wall, cpu, +sent, done.stdout


ARGS = {
    "plan": ["plan", "{policy}", "--uri", "{uri}", "--format", "json"],
    "status": ["status", "--uri", "{uri}"],
    "rotate": ["rotate", "{policy}", "--uri", "{uri}", "--at", AT.isoformat(), "--yes"],
}


def measure(n: int, delay: float, repeat: int, commands: list[str]) -> dict[str, Any]:
    """Per command: the median wall time, the commands on the wire, and (plan) the
    footprint its JSON states. rotate runs on a cluster of its own (windows in place)."""
    out: dict[str, Any] = {}
    for cluster in ("pinned", "rotate"):
        kinds = [k for k in commands if (k == "rotate") == (cluster == "rotate")]
        if kinds:
            out.update(_measure_on(cluster, n, delay, repeat, kinds))
    return out


def _measure_on(
    cluster: str, n: int, delay: float, repeat: int, kinds: list[str]
) -> dict[str, Any]:
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve_cluster, args=(n, cluster, child))
    server.start()
    out: dict[str, Any] = {}
    try:
        port = parent.recv()
        proxied = LatencyProxy(("127.0.0.1", port), delay)
        with proxied as proxy, tempfile.TemporaryDirectory() as tmp:
            uri = f"mongodb://127.0.0.1:{proxy.port}/"
            policy = Path(tmp) / "policy.yaml"
            policy.write_text(policy_text(n, cluster), encoding="utf-8")
            for kind in kinds:
                args = [a.format(policy=policy, uri=uri) for a in ARGS[kind]]
                walls, cpus, wire, stdout = [], [], Counter[str](), ""
                for _ in range(repeat):
                    wall, cpu, wire, stdout = run(args, proxy)
                    walls.append(wall)
                    cpus.append(cpu)
                stated = json.loads(stdout).get("server_footprint") if kind == "plan" else None
                out[kind] = {
                    "wall": statistics.median(walls),
                    "cpu": statistics.median(cpus),
                    "wire": wire,
                    "stated": stated,
                }
    finally:
        parent.send("stop")
        server.join(60)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[20, 1000])
    parser.add_argument("--delay-ms", type=float, default=2.5, help="added each way")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--commands", nargs="+", default=["plan", "status", "rotate"])
    args = parser.parse_args()
    warm()
    results = []
    for n in args.sizes:
        r = measure(n, args.delay_ms / 1000, args.repeat, args.commands)
        results.append(r)
        for kind, m in r.items():
            wire: Counter[str] = m["wire"]
            beats = wire.pop("hello", 0) + wire.pop("isMaster", 0)
            print(
                f"  zonectl {kind:<6} {n:>5} collections: {m['wall']:7.2f} s (median of "
                f"{args.repeat}; {m['cpu']:.2f} s of CPU in zonectl); {sum(wire.values())} "
                "commands on the wire "
                f"(+{beats} hello) {dict(sorted(wire.items()))}"
            )
            if m["stated"] is not None:
                print(f"    the plan states: {json.dumps(m['stated'], sort_keys=True)}")
    small, large = results
    for kind in small:
        ratio = large[kind]["wall"] / small[kind]["wall"]
        cpu = large[kind]["cpu"] / small[kind]["cpu"]
        verdict = "OK" if ratio <= GOAL else "OVER GOAL"
        print(
            f"P12 {kind} {args.sizes[1]}/{args.sizes[0]} collections at "
            f"{2 * args.delay_ms:g} ms RTT: {ratio:.2f}x (goal <= {GOAL:g}x) {verdict}; "
            f"zonectl's CPU {cpu:.2f}x"
        )


if __name__ == "__main__":
    main()
