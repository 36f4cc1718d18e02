"""The pure part of `plan`'s forecast per collection, without a cluster: the inputs a plan of
bench_many's pinned cluster reads (N collections of 4 chunks on 4 shards, half pinned to
zone hot, half to archive, each with 2 chunks out of its zone; a few measured, the others
estimated), fed to what zonectl.session.forecast runs on them: make_pieces (twice per
collection, as the chunk reads' rehearsal and replay call it), spread_estimates,
make_forecast, chunk_size_notes and routes_for. CPU seconds of each, best of --repeat.

    python benchmarks/bench_forecast.py [--namespaces 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from collections.abc import Callable
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.inputs import Range, make_pieces
from zonectl.forecast.report import Assumptions, make_forecast
from zonectl.forecast.reshard import ReshardRates, routes_for
from zonectl.forecast.settings import chunk_size_notes
from zonectl.forecast.size_spread import spread_estimates

MIB = 1024 * 1024
SHARD_ZONES = {
    "fast-0": frozenset({"hot"}),
    "fast-1": frozenset({"hot"}),
    "std-0": frozenset({"archive"}),
    "std-1": frozenset({"archive"}),
}
NOW = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
MEASURED = 8  # collections whose chunks were measured (the rest: estimated)


def inputs(n: int) -> tuple[list[tuple[list[dict[str, Any]], list[Range]]], list[NamespaceChunks]]:
    """Each collection's chunk documents and zone range (make_pieces' input), and what the
    reads make of them (the out-of-zone chunks with the collection's loads and counts)."""
    reads: list[tuple[list[dict[str, Any]], list[Range]]] = []
    colls: list[NamespaceChunks] = []
    for k in range(n):
        zone, away = (
            ("hot", ["std-0", "std-1"]) if k % 2 == 0 else ("archive", ["fast-0", "fast-1"])
        )
        bounds = [{"x": MinKey()}, {"x": 100}, {"x": 200}, {"x": 300}, {"x": MaxKey()}]
        docs = [{"min": bounds[i], "max": bounds[i + 1], "shard": away[i - 2]} for i in (2, 3)]
        reads.append((docs, [({"x": MinKey()}, {"x": MaxKey()}, zone)]))
        measured = k < MEASURED
        colls.append(
            NamespaceChunks(
                f"tenants.t{k:05d}",
                list(away),
                [32 * MIB + (432 if measured else 0)] * 2,
                [zone, zone],
                loads=dict.fromkeys(SHARD_ZONES, 32 * MIB),
                counts=dict.fromkeys(SHARD_ZONES, 1),
                max_chunk_bytes=128 * MIB,
                estimated=set() if measured else {0, 1},
                samples=[(32 * MIB + 432, 32 * MIB)] * 2 if measured else [],
            )
        )
    return reads, colls


def best(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--namespaces", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    reads, colls = inputs(args.namespaces)
    spread, _ = spread_estimates(colls)
    assumptions = Assumptions(copy_rate=64 * MIB, parallel=len(SHARD_ZONES))
    rates = ReshardRates(64 * MIB)
    steps: dict[str, Callable[[], object]] = {
        "make_pieces x2": lambda: [make_pieces(d, r) for d, r in reads + reads],
        "spread_estimates": lambda: spread_estimates(colls),
        "make_forecast": lambda: make_forecast(spread, SHARD_ZONES, assumptions, NOW),
        "chunk_size_notes": lambda: chunk_size_notes(spread, planned=False),
        "routes_for": lambda: routes_for(spread, SHARD_ZONES, rates, available=True),
    }
    total = 0.0
    for name, run in steps.items():
        seconds = best(args.repeat, run)
        total += seconds
        print(f"{name:18} {seconds:6.3f} s  {seconds / args.namespaces * 1e6:6.1f} us/collection")
    print(f"{'total':18} {total:6.3f} s  {total / args.namespaces * 1e6:6.1f} us/collection")


if __name__ == "__main__":
    main()
