"""Scale check for the sandbox (issue 2): 1,000,000 chunks across 64 shards.

Prints the process RSS after loading, then streams `find({uuid})` on config.chunks through
pymongo and prints documents per second. Targets: <= 600 MB RSS, >= 100,000 docs/s.

    python benchmarks/bench_sandbox_scale.py [--chunks N] [--shards N]
"""

from __future__ import annotations

import argparse
import gc
import time

import pymongo
from bson import MaxKey, MinKey
from bson.raw_bson import RawBSONDocument

from zonectl.sandbox.launch import serve
from zonectl.sandbox.state import Sandbox


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--shards", type=int, default=64)
    parser.add_argument("--raw", action="store_true", help="decode as RawBSONDocument")
    args = parser.parse_args()

    print(f"RSS before load: {rss_mb():.0f} MB")
    started = time.perf_counter()
    sandbox = Sandbox("7.0")
    cluster = sandbox.cluster
    names = [f"shard-{i:02d}" for i in range(args.shards)]
    for name in names:
        cluster.add_shard(name, f"{name}/{name}.bench:27018")
    n = args.chunks
    bounds = [{"x": MinKey()}, *({"x": i * 1000} for i in range(1, n)), {"x": MaxKey()}]
    shards = [names[i * args.shards // n] for i in range(n)]
    store = cluster.create_collection("bench.big", {"x": 1}, bounds=bounds, shards=shards,
                                      sizes=[64 << 20] * n, counts=[1000] * n)  # fmt: skip
    del bounds, shards
    gc.collect()
    print(f"loaded {len(store):,} chunks on {args.shards} shards in "
          f"{time.perf_counter() - started:.1f} s; RSS after load: {rss_mb():.0f} MB")  # fmt: skip

    with serve(sandbox) as server:
        options = {"document_class": RawBSONDocument} if args.raw else {}
        client: pymongo.MongoClient[dict[str, object]] = pymongo.MongoClient(server.uri, **options)
        uuid = client.config.collections.find_one({"_id": "bench.big"})["uuid"]
        started = time.perf_counter()
        count = sum(1 for _ in client.config.chunks.find({"uuid": uuid}))
        elapsed = time.perf_counter() - started
        print(f"streamed {count:,} chunk documents in {elapsed:.1f} s: "
              f"{count / elapsed:,.0f} docs/s ({'raw' if args.raw else 'decoded dicts'})")  # fmt: skip
        print(f"RSS after stream: {rss_mb():.0f} MB")
        client.close()


if __name__ == "__main__":
    main()
