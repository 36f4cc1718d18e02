"""Find/getMore streaming rate of the sandbox server, as pymongo sees it.

Serves N chunk-shaped raw BSON documents (default 1,000,000) from a server in a child
process (so client and server do not share a GIL) and prints documents/s for: raw batches
(no decode), RawBSONDocument, and dict decoding. The dict figure is bounded by pymongo's
own decoder on this machine, not by the server.

    python benchmarks/bench_sandbox_find.py [N]
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
from collections.abc import Iterator
from typing import Any

import bson
import pymongo
from bson.raw_bson import RawBSONDocument


def _chunk(i: int) -> RawBSONDocument:
    return RawBSONDocument(
        bson.encode(
            {
                "_id": bson.ObjectId(),
                "uuid": bson.Binary(b"u" * 16, 4),
                "min": {"ts": i},
                "max": {"ts": i + 1},
                "shard": f"shard-{i % 64:02d}",
                "lastmod": bson.Timestamp(1, i),
                "onCurrentShardSince": bson.Timestamp(1, 1),
                "history": [{"validAfter": bson.Timestamp(1, 1), "shard": f"shard-{i % 64:02d}"}],
            }
        )
    )


class _RawCollection:
    """A read-only collection whose exact scan yields raw documents, like config.chunks."""

    name = "bench.chunks"

    def __init__(self, docs: list[RawBSONDocument]) -> None:
        self._docs = docs

    def scan(self, filter: Any) -> Any:
        from zonectl.sandbox.catalog.store import Scan

        return Scan(self._docs, exact=True)

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def get(self, _id: Any) -> None:
        return None

    def put(self, doc: Any) -> None:
        raise NotImplementedError

    def remove(self, _id: Any) -> bool:
        return False

    def __len__(self) -> int:
        return len(self._docs)


def _serve(n: int, ports: Any) -> None:
    from zonectl.sandbox.launch import serve
    from zonectl.sandbox.state import Sandbox

    sandbox = Sandbox()
    sandbox.catalog.mount("bench.chunks", _RawCollection([_chunk(i) for i in range(n)]))
    server = serve(sandbox)
    ports.put(server.port)
    time.sleep(3600)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    ports: Any = mp.Queue()
    child = mp.Process(target=_serve, args=(n, ports), daemon=True)
    child.start()
    port = ports.get(timeout=600)
    client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
        f"mongodb://127.0.0.1:{port}/"
    )
    coll = client.bench.chunks
    t = time.perf_counter()
    count = sum(1 for _ in coll.find_raw_batches())
    print(
        f"raw batches (no decode):  {n / (time.perf_counter() - t):>10,.0f} docs/s"
        f" ({count} batches)"
    )
    raw = client.get_database(
        "bench", codec_options=bson.CodecOptions(document_class=RawBSONDocument)
    )
    t = time.perf_counter()
    got = sum(1 for _ in raw.chunks.find())
    print(f"RawBSONDocument:          {got / (time.perf_counter() - t):>10,.0f} docs/s")
    t = time.perf_counter()
    got = sum(1 for _ in coll.find())
    print(f"dict (pymongo decode):    {got / (time.perf_counter() - t):>10,.0f} docs/s")
    client.close()
    child.kill()


if __name__ == "__main__":
    main()
