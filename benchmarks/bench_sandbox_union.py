"""The sandbox's CPU for plan's one big config.chunks aggregate, without a network.

bench_many's pinned cluster (7.0, four shards, N collections of four chunks) is seeded in
this process; the aggregate zonectl's ChunkBatch sends to read every namespace whole (one
`$unionWith` sub-pipeline of zonectl.mongo.chunk_batch.whole_read per namespace, in groups
of GROUP) is decoded from its BSON and run through the Dispatcher, as the wire server
does, and its CPU is printed (the best of a few runs) with the per-sub-pipeline cost.

    python benchmarks/bench_sandbox_union.py [N] [--runs R]
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import time
from typing import Any

import bson
from bson import MaxKey, MinKey
from many_kit import CHUNK_BYTES, SHARDS, names

from zonectl.cli.app import GC_THRESHOLDS
from zonectl.mongo.chunk_batch import GROUP, TAG, _chained, whole_read
from zonectl.sandbox.codec import CODEC
from zonectl.sandbox.commands.registry import Session
from zonectl.sandbox.state import Sandbox
from zonectl.sandbox.wire.dispatch import Dispatcher


def _sandbox(n: int) -> Sandbox:
    sb = Sandbox("7.0")
    for shard, zone in SHARDS.items():
        sb.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", (zone,))
    bounds = [{"x": MinKey()}, *({"x": c} for c in (100, 200, 300)), {"x": MaxKey()}]
    for ns in names(n):
        sb.cluster.create_collection(
            ns, {"x": 1}, bounds=bounds, shards=list(SHARDS),
            sizes=[CHUNK_BYTES] * 4, counts=[1000] * 4,
        )  # fmt: skip
    return sb


def _command(sb: Sandbox) -> bytes:
    uuids = [store.uuid for _, store in sorted(sb.cluster.store_map().items())]
    reads = [[*whole_read({"uuid": u}), {"$set": {TAG: i}}] for i, u in enumerate(uuids)]
    groups = [_chained(reads[i : i + GROUP]) for i in range(0, len(reads), GROUP)]
    body: dict[str, Any] = {
        "aggregate": "chunks", "pipeline": _chained(groups),
        "cursor": {"batchSize": 2**31 - 1}, "$db": "config",
    }  # fmt: skip
    return bson.encode(body, codec_options=CODEC)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", type=int, nargs="?", default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    gc.set_threshold(*GC_THRESHOLDS)
    sb = _sandbox(args.n)
    dispatcher = Dispatcher(sb)
    session = Session(connection_id=1, peer="127.0.0.1:1", local="127.0.0.1:2")
    raw = _command(sb)
    times, digest = [], ""
    for _ in range(args.runs):
        start = time.process_time()
        reply = dispatcher.run(session, bson.decode(raw, CODEC)).reply or b""
        times.append(time.process_time() - start)
        cursor = bson.decode(reply, CODEC)["cursor"]
        batch = bson.encode({"b": cursor["firstBatch"]}, codec_options=CODEC)
        digest = hashlib.sha256(batch).hexdigest()[:12]
    best = min(times)
    print(
        f"{args.n} namespaces, {len(raw) / 1e6:.1f} MB request: {best:.2f} s CPU "
        f"(best of {args.runs}), {best / args.n * 1e6:.0f} us per sub-pipeline; "
        f"answer sha256 {digest}"
    )


if __name__ == "__main__":
    main()
