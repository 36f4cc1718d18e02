"""Scale check for the sandbox (issue 2): 1,000,000 chunks across 64 shards.

Prints the process RSS after loading, then streams `find({uuid})` on config.chunks through
pymongo and prints documents per second. Targets: <= 600 MB RSS, >= 100,000 docs/s.

    python benchmarks/bench_sandbox_scale.py [--chunks N] [--shards N]
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import time

from bson import MaxKey, MinKey

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

    # The client runs in its own process, as pymongo talks to a real mongos: in one process
    # the client's decoding and the server's threads would share one GIL.
    with serve(sandbox) as server:
        code = _CLIENT.format(uri=server.uri, raw=args.raw)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        print(out.stdout.strip() or out.stderr.strip())
        print(f"server RSS after stream: {rss_mb():.0f} MB")


_CLIENT = """
import time, pymongo
from bson.raw_bson import RawBSONDocument
options = {{"document_class": RawBSONDocument}} if {raw} else {{}}
client = pymongo.MongoClient("{uri}", **options)
uuid = pymongo.MongoClient("{uri}").config.collections.find_one({{"_id": "bench.big"}})["uuid"]
started = time.perf_counter()
count = sum(1 for _ in client.config.chunks.find({{"uuid": uuid}}))
elapsed = time.perf_counter() - started
kind = "raw" if {raw} else "decoded dicts"
rate = count / elapsed
print(f"streamed {{count:,}} chunk docs in {{elapsed:.1f}} s: {{rate:,.0f}} docs/s ({{kind}})")
"""

if __name__ == "__main__":
    main()
