"""P1 (DESIGN §7): plan cost grows with the change, not with the cluster.

Two sandbox clusters with the same shards, zones and ranges, one of 1,000 and one of
1,000,000 chunks; a policy that differs from both by one range. Times the whole plan
(connect, read state, plan, targeted impact counts) over TCP through pymongo, and counts
round trips and documents read with pymongo command monitoring.

    python benchmarks/bench_plan.py [--sizes 1000 1000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import statistics
import time
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey
from pymongo import monitoring

from zonectl.model.desired import CollectionPolicy, DesiredState, ZoneRange
from zonectl.mongo import connect, read_cluster_state, read_impacts
from zonectl.plan.planner import make_plan
from zonectl.plan.value import Plan
from zonectl.sandbox.launch import serve
from zonectl.sandbox.state import Sandbox

NS = "app.events"
SHARDS = ("shard-fast-0", "shard-fast-1", "shard-std-0", "shard-std-1")
ZONES = {
    "shard-fast-0": ("hot",),
    "shard-fast-1": ("hot",),
    "shard-std-0": ("archive",),
    "shard-std-1": ("archive",),
}


class Counter(monitoring.CommandListener):
    """Round trips (commands sent) and documents returned by find/getMore/aggregate."""

    def __init__(self) -> None:
        self.commands = 0
        self.documents = 0
        self.names: dict[str, int] = {}

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        self.commands += 1
        self.names[event.command_name] = self.names.get(event.command_name, 0) + 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        cursor = event.reply.get("cursor") if isinstance(event.reply, dict) else None
        if isinstance(cursor, dict):
            self.documents += len(cursor.get("firstBatch", cursor.get("nextBatch", [])))

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def build_sandbox(chunks: int) -> Sandbox:
    sb = Sandbox("7.0")
    for shard in SHARDS:
        sb.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", ZONES[shard])
    bounds: list[dict[str, Any]] = [{"x": MinKey()}]
    bounds += [{"x": i} for i in range(1, chunks)]
    bounds.append({"x": MaxKey()})
    owners = [SHARDS[i % len(SHARDS)] for i in range(chunks)]
    sb.cluster.create_collection(NS, {"x": 1}, bounds=bounds, shards=owners)
    return sb


def live_ranges(chunks: int) -> list[ZoneRange]:
    """archive below a quarter of the key space, hot above three quarters."""
    q = chunks // 4
    return [
        ZoneRange("archive", {"x": MinKey()}, {"x": q}),
        ZoneRange("hot", {"x": 3 * q}, {"x": MaxKey()}),
    ]


def desired_state(chunks: int) -> DesiredState:
    """The live ranges plus one new ten-chunk range in the middle: a one-range change."""
    mid = chunks // 2
    ranges = (*live_ranges(chunks), ZoneRange("hot", {"x": mid}, {"x": mid + 10}))
    return DesiredState(
        shards={s: frozenset(z) for s, z in ZONES.items()},
        collections={NS: CollectionPolicy(NS, key={"x": 1}, ranges=ranges)},
        digest="sha256:bench",
    )


def plan_once(uri: str, desired: DesiredState, counter: Counter) -> Plan:
    with connect(uri, listeners=[counter]) as conn:
        actual = read_cluster_state(conn, desired.collections)
        plan = make_plan(desired, actual, boundaries={}, at=dt.datetime.now(dt.UTC))
        return plan.with_impacts(read_impacts(conn, actual, plan))


def measure(chunks: int, repeat: int) -> tuple[float, Counter, Plan]:
    t0 = time.perf_counter()
    sb = build_sandbox(chunks)
    with serve(sb) as server:
        client_setup = Counter()
        with connect(server.uri, listeners=[client_setup]) as conn:
            for r in live_ranges(chunks):
                conn.client.admin.command(
                    {"updateZoneKeyRange": NS, "min": r.min, "max": r.max, "zone": r.zone}
                )
        print(f"  {chunks:>9,} chunks: cluster built in {time.perf_counter() - t0:.1f} s")
        # The sandbox shares this process: without freezing, the cyclic GC's full passes
        # walk its million chunk objects and bill that to the plan. A real mongos is
        # another process, so the timing excludes them.
        gc.collect()
        gc.freeze()
        desired = desired_state(chunks)
        times: list[float] = []
        counter = Counter()
        plan = plan_once(server.uri, desired, Counter())  # warm-up
        for _ in range(repeat):
            counter = Counter()
            start = time.perf_counter()
            plan = plan_once(server.uri, desired, counter)
            times.append(time.perf_counter() - start)
    gc.unfreeze()
    return statistics.median(times), counter, plan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[1_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    results = []
    for size in args.sizes:
        seconds, counter, plan = measure(size, args.repeat)
        (op,) = plan.ops
        results.append((size, seconds, counter, plan))
        print(
            f"  {size:>9,} chunks: plan {seconds * 1000:.1f} ms (median of {args.repeat}), "
            f"{counter.commands} round trips {dict(sorted(counter.names.items()))}, "
            f"{counter.documents} documents read; op: {op.describe()}; "
            f"impact {getattr(op, 'impact', None)}"
        )
    (small, t_small, *_), (large, t_large, *_) = results
    ratio = t_large / t_small
    verdict = "OK" if ratio <= 1.5 else "OVER GOAL"
    print(f"P1 ratio {large:,}/{small:,} chunks: {ratio:.2f}x (goal <= 1.5x) {verdict}")


if __name__ == "__main__":
    main()
