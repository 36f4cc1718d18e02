"""P12 (DESIGN §7): round trips do not grow with the number of namespaces. Over a latency
proxy that adds 2.5 ms each way (benchmarks/latency_proxy.py: a mongos in another zone),
the whole `zonectl plan` of a policy that pins 1,000 collections (4 chunks each) runs
within 3x the same plan for 20.

A sandbox (7.0, four shards: two in zone hot, two in archive) in a child process holds N
sharded collections `tenants.t0000`.. of four chunks, one per shard; the policy pins the
even ones to hot and the odd ones to archive, so each plans one range and two chunk moves.
Times the command a user runs, as a subprocess through the proxy, and prints the commands
it sent by name: as the proxy saw them on the wire, and as the plan's JSON states them
(`server_footprint`). `status` is timed the same way.

    python benchmarks/bench_many.py [--sizes 20 1000] [--delay-ms 2.5] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency_proxy import LatencyProxy

SHARDS = {"fast-0": "hot", "fast-1": "hot", "std-0": "archive", "std-1": "archive"}
CHUNK_BYTES = 32 * 1024 * 1024
GOAL = 3.0


def names(n: int) -> list[str]:
    return [f"tenants.t{i:04d}" for i in range(n)]


def serve_cluster(n: int, pipe: Connection) -> None:
    """Child process: N collections of four chunks, one on each shard; serve until told."""
    from zonectl.sandbox.launch import serve
    from zonectl.sandbox.state import Sandbox

    sb = Sandbox("7.0")
    for shard, zone in SHARDS.items():
        sb.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", (zone,))
    bounds = [{"x": MinKey()}, {"x": 100}, {"x": 200}, {"x": 300}, {"x": MaxKey()}]
    for ns in names(n):
        sb.cluster.create_collection(
            ns,
            {"x": 1},
            bounds=bounds,
            shards=list(SHARDS),
            sizes=[CHUNK_BYTES] * 4,
            counts=[1000] * 4,
        )
    with serve(sb) as server:
        pipe.send(server.port)
        pipe.recv()


def policy_text(n: int) -> str:
    text = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n"
    text += "".join(f"  {s}: [{z}]\n" for s, z in SHARDS.items()) + "collections:\n"
    for i, ns in enumerate(names(n)):
        text += f"  {ns}:\n    key: {{x: 1}}\n    pin: {'hot' if i % 2 == 0 else 'archive'}\n"
    return text


def run(args: list[str], proxy: LatencyProxy) -> tuple[float, Counter[str], str]:
    before = Counter(proxy.commands)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "zonectl", *args], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"zonectl {args[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    sent = Counter(proxy.commands)
    sent.subtract(before)
    return wall, +sent, done.stdout


def measure(n: int, delay: float, repeat: int, commands: list[str]) -> dict[str, Any]:
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve_cluster, args=(n, child))
    server.start()
    out: dict[str, Any] = {}
    try:
        port = parent.recv()
        proxied = LatencyProxy(("127.0.0.1", port), delay)
        with proxied as proxy, tempfile.TemporaryDirectory() as tmp:
            uri = f"mongodb://127.0.0.1:{proxy.port}/"
            policy = Path(tmp) / "policy.yaml"
            policy.write_text(policy_text(n), encoding="utf-8")
            for kind in commands:
                args = {
                    "plan": ["plan", str(policy), "--uri", uri, "--format", "json"],
                    "status": ["status", "--uri", uri],
                }[kind]
                walls, wire, stdout = [], Counter[str](), ""
                for _ in range(repeat):
                    wall, wire, stdout = run(args, proxy)
                    walls.append(wall)
                stated = None
                if kind == "plan":
                    stated = json.loads(stdout).get("server_footprint")
                out[kind] = {"wall": statistics.median(walls), "wire": wire, "stated": stated}
    finally:
        parent.send("stop")
        server.join(60)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[20, 1000])
    parser.add_argument("--delay-ms", type=float, default=2.5, help="added each way")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--commands", nargs="+", default=["plan", "status"])
    args = parser.parse_args()
    results = []
    for n in args.sizes:
        r = measure(n, args.delay_ms / 1000, args.repeat, args.commands)
        results.append(r)
        for kind, m in r.items():
            wire: Counter[str] = m["wire"]
            beats = wire.pop("hello", 0) + wire.pop("isMaster", 0)
            print(
                f"  zonectl {kind:<6} {n:>5} collections: {m['wall']:7.2f} s (median of "
                f"{args.repeat}); {sum(wire.values())} commands on the wire "
                f"(+{beats} hello) {dict(sorted(wire.items()))}"
            )
            if m["stated"] is not None:
                print(f"    the plan states: {json.dumps(m['stated'], sort_keys=True)}")
    small, large = results
    for kind in small:
        ratio = large[kind]["wall"] / small[kind]["wall"]
        verdict = "OK" if ratio <= GOAL else "OVER GOAL"
        print(
            f"P12 {kind} {args.sizes[1]}/{args.sizes[0]} collections at "
            f"{2 * args.delay_ms:g} ms RTT: {ratio:.2f}x (goal <= {GOAL:g}x) {verdict}"
        )


if __name__ == "__main__":
    main()
