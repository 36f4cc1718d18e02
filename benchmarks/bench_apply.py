"""P3/P4 (issue 5): apply sends exactly the planned commands; balancing is paused only
around range changes; eager migration moves exactly the violating chunks.

P3: a cluster of N namespaces whose hot/archive boundary moves; counts the cluster
state-changing commands apply sends (pymongo command monitoring) against the plan's ops,
and compares how long each namespace's balancing was paused with its range commands.
P4: the same boundary move with eager migration, per server version: chunks moved per
violating chunk, and move commands per contiguous violating run (one move per chunk by
design, see zonectl/apply/migrate.py).

    python benchmarks/bench_apply.py [--namespaces 8] [--chunks 2000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import tempfile
import time
from pathlib import Path
from typing import Any

from pymongo import monitoring

from zonectl.apply.run import ApplyOptions, Prepared, run_apply
from zonectl.mongo import connect, read_cluster_state
from zonectl.plan.planner import make_plan
from zonectl.policy import load_policy
from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox
from zonectl.session.ports import build_ports

CLUSTER_COMMANDS = {
    "addShardToZone", "removeShardFromZone", "updateZoneKeyRange", "balancerStart",
    "balancerStop", "moveChunk", "moveRange", "split", "mergeChunks",
}  # fmt: skip


class Counter(monitoring.CommandListener):
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        name = event.command_name
        target = event.command.get(name)
        self.sent.append((name, f"{event.database_name}.{target}"))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass

    def cluster_changes(self) -> list[tuple[str, str]]:
        writes = {"insert", "update", "delete", "findAndModify"}
        return [
            (n, t)
            for n, t in self.sent
            if n in CLUSTER_COMMANDS or (n in writes and t.startswith("config."))
        ]


def write_scenario(root: Path, version: str, namespaces: int, chunks: int, boundary: int) -> Path:
    """A cluster file and a policy moving every namespace's boundary to `boundary`."""
    cols, zones, pol = [], [], []
    for i in range(namespaces):
        ns = f"app.c{i}"
        cols.append(
            f"  - {{ns: {ns}, key: {{x: 1}}, chunks: {chunks}, "
            f"keys: {{type: int, start: 0, step: 100}}}}"
        )
        half = chunks * 100 // 2
        zones.append(
            f"  - {{ns: {ns}, min: {{x: {{$minKey: 1}}}}, max: {{x: {half}}}, zone: archive}}"
        )
        zones.append(f"  - {{ns: {ns}, min: {{x: {half}}}, max: {{x: {{$maxKey: 1}}}}, zone: hot}}")
        pol.append(
            f"  {ns}:\n    ranges:\n"
            f"      - {{zone: archive, min: {{x: {{$minKey: 1}}}}, max: {{x: {boundary}}}}}\n"
            f"      - {{zone: hot, min: {{x: {boundary}}}, max: {{x: {{$maxKey: 1}}}}}}"
        )
    (root / "cluster.yaml").write_text(
        f'version: "{version}"\nshards:\n'
        "  - {name: s-fast-0, zones: [hot]}\n  - {name: s-fast-1, zones: [hot]}\n"
        "  - {name: s-std-0, zones: [archive]}\n  - {name: s-std-1, zones: [archive]}\n"
        "databases:\n  - {name: app, primary: s-std-0}\ncollections:\n"
        + "\n".join(cols) + "\nzones:\n" + "\n".join(zones) + "\n"
    )  # fmt: skip
    (root / "policy.yaml").write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n"
        "  s-fast-0: [hot]\n  s-fast-1: [hot]\n  s-std-0: [archive]\n  s-std-1: [archive]\n"
        "collections:\n" + "\n".join(pol) + "\n"
    )
    return root


class Quiet:
    def info(self, text: str) -> None: ...
    def op(self, op: Any, status: str) -> None: ...
    def start(self, ns: str, chunks: int, total_bytes: int = 0) -> None: ...
    def advance(self, chunks: int, nbytes: int = 0) -> None: ...
    def note(self, text: str) -> None: ...
    def finish(self) -> None: ...


def run(root: Path, migrate: bool) -> dict[str, Any]:
    sb = Sandbox(seed.load(root / "cluster.yaml").version or "7.0")
    seed.seed(sb, seed.load(root / "cluster.yaml"), str(root / "cluster.yaml"))
    server = serve(sb)
    desired = load_policy([root / "policy.yaml"]).desired
    counter = Counter()
    try:
        with connect(server.uri, listeners=[counter]) as conn:
            ports = build_ports(conn, "zonectl")

            def prepare() -> Prepared:
                actual = read_cluster_state(conn, desired.collections)
                at = dt.datetime.now(dt.UTC)
                plan = make_plan(desired, actual, boundaries={}, at=at)
                return Prepared(plan, tuple(sorted(desired.collections)) if migrate else ())

            plan_ops = len(prepare().plan.ops)
            counter.sent.clear()
            t0 = time.perf_counter()
            result = run_apply(ports, ApplyOptions(), prepare, lambda p, v: True, Quiet())
            elapsed = time.perf_counter() - t0
    finally:
        server.close()
    changes = counter.cluster_changes()
    pauses = [c for c in changes if c == ("update", "config.collections")]
    moves = [c for c in changes if c[0] in ("moveRange", "moveChunk")]
    return {
        "plan_ops": plan_ops,
        "changes": len(changes),
        "pauses": len(pauses),
        "splits": sum(1 for c in changes if c[0] == "split"),
        "moves": len(moves),
        "result": result,
        "elapsed": elapsed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--namespaces", type=int, default=8)
    parser.add_argument("--chunks", type=int, default=2000)
    args = parser.parse_args()
    n, chunks = args.namespaces, args.chunks
    with tempfile.TemporaryDirectory() as tmp:
        root = write_scenario(Path(tmp), "7.0", n, chunks, boundary=chunks * 100 // 2 + 2050)
        p3 = run(root, migrate=False)
    r = p3["result"]
    op_commands = p3["changes"] - p3["pauses"]
    print(f"P3  {n} namespaces x {chunks} chunks, boundary moved on each (7.0)")
    print(
        f"    plan ops {p3['plan_ops']}, state-changing commands sent {p3['changes']} "
        f"= {op_commands} op commands + {p3['pauses']} pause/restore"
    )
    print(f"    op commands / plan ops = {op_commands / max(p3['plan_ops'], 1):.2f}")
    for ns in sorted(r.paused_s):
        print(f"    {ns}: balancing paused {r.paused_s[ns] * 1000:7.1f} ms, "
              f"its range commands {r.range_s.get(ns, 0) * 1000:7.1f} ms")  # fmt: skip
    print(f"    apply wall time {p3['elapsed']:.2f}s")
    for version in ("5.0", "7.0"):
        with tempfile.TemporaryDirectory() as tmp:
            # The new boundary falls inside a chunk: 1 split + 21 out-of-zone chunks each.
            root = write_scenario(Path(tmp), version, 2, chunks, chunks * 100 // 2 + 2050)
            p4 = run(root, migrate=True)
        migs = p4["result"].migrations
        violating = sum(m.violating for m in migs)
        runs = sum(m.runs for m in migs)
        moved = sum(m.moved for m in migs)
        print(f"P4  --migrate on {version}: {violating} violating chunks in {runs} contiguous "
              f"run(s); {p4['splits']} split(s); moved {moved} "
              f"(moved/violating = {moved / max(violating, 1):.2f}); move commands "
              f"{p4['moves']} vs runs {runs} (= {p4['moves'] / max(runs, 1):.1f} per run, "
              f"one per chunk by design); {p4['elapsed']:.2f}s")  # fmt: skip


if __name__ == "__main__":
    main()
