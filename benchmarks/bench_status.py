"""P2 (ARCHITECTURE.md, "Targets"): a full compliance scan reads chunks at >= 0.5x the raw
pymongo find-and-decode rate of the same documents, in bounded memory.

A sandbox with one namespace of N chunks (compound {ts, _id} date key, two zone ranges,
chunks spread round-robin so half of them are out of zone) runs in a child process, so
this process holds only the client. Side by side in one run, alternating, over TCP:

  raw      pymongo `find(filter, PROJECTION, sort min, batch_size)`, iterate and decode
  zonectl  `read_chunk_compliance`: the same query, decoded batch by batch, merge-walked

Prints docs/s (wall clock, and per client CPU second, which excludes the server), the
ratio, and the peak RSS growth of this process during each pass (sampled every 20 ms).

    python benchmarks/bench_status.py [--chunks 1000000] [--repeat 1] [--tune 1000 10000 ...]
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing as mp
import resource
import threading
import time
from collections.abc import Callable
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.model.cluster import LiveRange
from zonectl.mongo import connect
from zonectl.mongo.chunk_scan import (
    BATCH_SIZE,
    PROJECTION,
    ChunkCompliance,
    chunk_filter,
    read_chunk_compliance,
    scan_compliance,
    stream_chunks,
)

NS = "app.events"
SHARDS = {"fast-0": ["hot"], "std-0": ["archive"], "std-1": ["archive"], "std-2": ["archive"]}
START = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)


def _bound(i: int) -> dict[str, Any]:
    return {"ts": START + dt.timedelta(minutes=i), "_id": MinKey()}


def ranges(chunks: int) -> list[LiveRange]:
    split = _bound(chunks * 3 // 4)
    return [
        LiveRange(NS, "archive", {"ts": MinKey(), "_id": MinKey()}, split),
        LiveRange(NS, "hot", split, {"ts": MaxKey(), "_id": MaxKey()}),
    ]


def serve_cluster(chunks: int, uri_out: Any, stop: Any) -> None:
    """Child process: build and serve the sandbox until told to stop."""
    from zonectl.sandbox.launch import serve
    from zonectl.sandbox.state import Sandbox

    sb = Sandbox("7.0")
    for name, zones in SHARDS.items():
        sb.cluster.add_shard(name, f"rs-{name}/{name}:27018", zones)
    bounds: list[dict[str, Any]] = [{"ts": MinKey(), "_id": MinKey()}]
    bounds += [_bound(i) for i in range(1, chunks)]
    bounds.append({"ts": MaxKey(), "_id": MaxKey()})
    names = list(SHARDS)
    sb.cluster.create_collection(
        NS, {"ts": 1, "_id": 1}, bounds=bounds, shards=[names[i % 4] for i in range(chunks)]
    )
    del bounds
    server = serve(sb)
    uri_out.put(server.uri)
    stop.wait()
    server.close()


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


class PeakRss:
    """Peak resident set size above the start, sampled by a thread (no tracing cost)."""

    def __enter__(self) -> PeakRss:
        self.start = self.peak = _rss_bytes()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, _rss_bytes())

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss_bytes())

    @property
    def growth_mib(self) -> float:
        return (self.peak - self.start) / 2**20


def timed(fn: Callable[[], int]) -> tuple[int, float, float, float]:
    """(docs, wall s, client cpu s, peak RSS growth MiB)."""
    with PeakRss() as rss:
        wall, cpu = time.perf_counter(), time.process_time()
        n = fn()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return n, wall, cpu, rss.growth_mib


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--tune", type=int, nargs="*", help="also time zonectl at these batch sizes")
    args = ap.parse_args()

    ctx = mp.get_context("spawn")
    uri_q, stop = ctx.Queue(), ctx.Event()
    child = ctx.Process(target=serve_cluster, args=(args.chunks, uri_q, stop), daemon=True)
    built = time.perf_counter()
    child.start()
    uri = uri_q.get(timeout=1800)
    print(f"sandbox with {args.chunks:,} chunks ready in {time.perf_counter() - built:.1f} s")
    live = ranges(args.chunks)
    zones = {name: tuple(z) for name, z in SHARDS.items()}
    try:
        with connect(uri) as conn:
            coll = conn.client.config.collections.find_one({"_id": NS})
            assert coll is not None
            where = chunk_filter(coll, conn.version)
            chunks = conn.client.config.chunks

            def raw() -> int:
                n = 0
                for _ in chunks.find(where, PROJECTION, sort=[("min", 1)], batch_size=BATCH_SIZE):
                    n += 1
                return n

            found: list[ChunkCompliance] = []

            def ours() -> int:
                found.append(read_chunk_compliance(conn, coll, live, zones))
                return found[-1].chunks

            results: dict[str, list[tuple[int, float, float, float]]] = {"raw": [], "zonectl": []}
            for i in range(args.repeat):
                order = [("raw", raw), ("zonectl", ours)]
                for name, fn in order if i % 2 == 0 else order[::-1]:
                    results[name].append(timed(fn))
            report(results)
            check = found[-1]
            print(
                f"compliance: {check.outside_zone:,} outside, {check.straddling:,} straddling, "
                f"per shard {check.per_shard}"
            )
            for size in args.tune or ():

                def sized(size: int = size) -> int:
                    stream = stream_chunks(conn, where, batch_size=size)
                    return scan_compliance(stream, live, zones, "ts").chunks

                n, wall, cpu, mib = timed(sized)
                print(
                    f"  batch {size:>7,}: {n / wall:>10,.0f} docs/s wall, "
                    f"{n / cpu:>10,.0f} docs/client-cpu-s, peak RSS +{mib:,.1f} MiB"
                )
    finally:
        stop.set()
        child.join(timeout=30)


def report(results: dict[str, list[tuple[int, float, float, float]]]) -> None:
    rows = {}
    for name, runs in results.items():
        n = runs[0][0]
        wall = min(r[1] for r in runs)
        cpu = min(r[2] for r in runs)
        mib = max(r[3] for r in runs)
        rows[name] = (n, n / wall, n / cpu, mib)
        print(
            f"{name:>8}: {n:,} docs, {n / wall:>10,.0f} docs/s wall, "
            f"{n / cpu:>10,.0f} docs/client-cpu-s, peak RSS +{mib:,.1f} MiB"
        )
    assert rows["raw"][0] == rows["zonectl"][0], "both passes must read every chunk"
    print(
        f"   ratio: {rows['zonectl'][1] / rows['raw'][1]:.2f} wall clock, "
        f"{rows['zonectl'][2] / rows['raw'][2]:.2f} client CPU (goal >= 0.50)"
    )


if __name__ == "__main__":
    main()
