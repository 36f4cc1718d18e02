"""The sandbox's CPU for plan's whole-namespace reads of config.chunks, without a network.

bench_many's pinned cluster (7.0, four shards, N collections of four chunks) is seeded in
this process; the commands zonectl's ChunkBatch sends to read every namespace whole
(zonectl.mongo.whole_reads: the aggregate counting each namespace's chunks, the find of
the small ones' chunks) are decoded from their BSON and run through the Dispatcher, as the
wire server does, and their CPU is printed (the best of a few runs) with the cost per
namespace.

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
from zonectl.mongo.chunk_batch import TAG
from zonectl.mongo.state import WHOLE
from zonectl.mongo.whole_reads import WholeReads, fetch_spec
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


def _commands(sb: Sandbox) -> list[tuple[str, bytes]]:
    """The count aggregate and the fetch find, as ChunkBatch sends them for every
    namespace (each is small: all are fetched)."""
    uuids = [store.uuid for _, store in sorted(sb.cluster.store_map().items())]
    (count,) = WholeReads([("uuid", u) for u in uuids], CODEC).count_reads()
    where, fields = fetch_spec("uuid", uuids)
    bodies: list[tuple[str, dict[str, Any]]] = [
        ("count", {
            "aggregate": "chunks", "pipeline": [*count[1], {"$set": {TAG: 0}}],
            "cursor": {"batchSize": WHOLE}, "$db": "config",
        }),
        ("fetch", {
            "find": "chunks", "filter": where, "projection": fields,
            "batchSize": WHOLE, "$db": "config",
        }),
    ]  # fmt: skip
    return [(name, bson.encode(body, codec_options=CODEC)) for name, body in bodies]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", type=int, nargs="?", default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    gc.set_threshold(*GC_THRESHOLDS)
    sb = _sandbox(args.n)
    dispatcher = Dispatcher(sb)
    session = Session(connection_id=1, peer="127.0.0.1:1", local="127.0.0.1:2")
    for name, raw in _commands(sb):
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
            f"{args.n} namespaces, {name} ({len(raw) / 1e6:.1f} MB request): {best:.2f} s CPU "
            f"(best of {args.runs}), {best / args.n * 1e6:.0f} us per namespace; "
            f"answer sha256 {digest}"
        )


if __name__ == "__main__":
    main()
