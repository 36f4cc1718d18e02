"""Issue 22: `zonectl status --format html` of a 1,000,000-chunk collection renders in at
most 2x the time of `zonectl status --format json` on the same cluster, and is <= 2 MiB.

A sandbox with one namespace of N chunks (compound {ts, _id} date key, an archive and a hot
zone, chunks on their zone's shards except every 1,000th, which sits on a shard outside
its zone) runs in a child process. The CLI command a user runs, `python -m zonectl status
--uri URI -n app.events --format json|html`, is timed side by side in one run, the two
formats alternating; prints each run's wall time, the best of each, their ratio and the
page's size.

    python benchmarks/bench_html.py [--chunks 1000000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing as mp
import subprocess
import sys
import time
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey

NS = "app.events"
SHARDS = {"fast-0": ["hot"], "std-0": ["archive"], "std-1": ["archive"], "std-2": ["archive"]}
START = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
MISPLACED_EVERY = 1000


def _bound(i: int) -> dict[str, Any]:
    return {"ts": START + dt.timedelta(minutes=i), "_id": MinKey()}


def serve_cluster(chunks: int, uri_out: Any, stop: Any) -> None:
    """Child process: build and serve the sandbox until told to stop."""
    from zonectl.sandbox.launch import serve
    from zonectl.sandbox.state import Sandbox

    sb = Sandbox("7.0")
    for name, zones in SHARDS.items():
        sb.cluster.add_shard(name, f"rs-{name}/{name}:27018", zones)
    split = chunks * 3 // 4
    bounds: list[dict[str, Any]] = [{"ts": MinKey(), "_id": MinKey()}]
    bounds += [_bound(i) for i in range(1, chunks)]
    bounds.append({"ts": MaxKey(), "_id": MaxKey()})
    archive = ["std-0", "std-1", "std-2"]
    shards = [
        ("fast-0" if i < split else archive[i % 3])  # misplaced: the other zone's shard
        if i % MISPLACED_EVERY == 0
        else (archive[i % 3] if i < split else "fast-0")
        for i in range(chunks)
    ]
    sb.cluster.create_collection(NS, {"ts": 1, "_id": 1}, bounds=bounds, shards=shards)
    low, high = {"ts": MinKey(), "_id": MinKey()}, {"ts": MaxKey(), "_id": MaxKey()}
    server = serve(sb)
    uri_out.put(server.uri)
    import pymongo

    client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(server.uri)
    client.admin.command(
        {"updateZoneKeyRange": NS, "min": low, "max": _bound(split), "zone": "archive"}
    )
    client.admin.command(
        {"updateZoneKeyRange": NS, "min": _bound(split), "max": high, "zone": "hot"}
    )
    client.close()
    del bounds, shards
    stop.wait()
    server.close()


def run_status(uri: str, fmt: str) -> tuple[float, int]:
    """Wall seconds of the whole CLI command and the size of what it printed."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "zonectl", "status", "--uri", uri, "-n", NS, "--format", fmt],
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"status --format {fmt} failed: {done.stderr.decode()[-2000:]}")
    return wall, len(done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    ctx = mp.get_context("spawn")
    uri_q, stop = ctx.Queue(), ctx.Event()
    child = ctx.Process(target=serve_cluster, args=(args.chunks, uri_q, stop), daemon=True)
    built = time.perf_counter()
    child.start()
    uri = uri_q.get(timeout=1800)
    time.sleep(1.0)  # the zone ranges are added right after the server answers
    print(f"sandbox with {args.chunks:,} chunks ready in {time.perf_counter() - built:.1f} s")
    runs: dict[str, list[tuple[float, int]]] = {"json": [], "html": []}
    try:
        for i in range(args.repeat):
            order = ["json", "html"] if i % 2 == 0 else ["html", "json"]
            for fmt in order:
                wall, size = run_status(uri, fmt)
                runs[fmt].append((wall, size))
                print(f"  run {i + 1} {fmt:>4}: {wall:7.2f} s, {size / 2**20:6.2f} MiB")
    finally:
        stop.set()
        child.join(timeout=30)
    best = {fmt: min(w for w, _ in r) for fmt, r in runs.items()}
    page = runs["html"][-1][1]
    print(f"best: json {best['json']:.2f} s, html {best['html']:.2f} s")
    print(f"ratio html/json: {best['html'] / best['json']:.2f} (goal <= 2.00)")
    print(f"page: {page:,} bytes = {page / 2**20:.2f} MiB (goal <= 2.00 MiB)")


if __name__ == "__main__":
    main()
