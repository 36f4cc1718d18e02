"""ChunkBatch.replay keeps a rehearsal in which every answer was real as the run itself: a
reader whose namespaces were prefetched runs once; one that meets a namespace not read yet
runs again, for real, and its deferred effects (`when_real`) happen once, for the kept run
only; a dataSize a rehearsal did not send (ChunkSizes.measure, budget left) makes the run
happen for real and measure. Through pymongo against a sandbox served over TCP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey
from wire_count import Sent

from zonectl.mongo.chunk_batch import ChunkBatch
from zonectl.mongo.chunk_sizes import ChunkSizes
from zonectl.mongo.connect import Connection, connect

SHARDS = ("sh-a", "sh-b")
BOUNDS = [{"k": MinKey()}, {"k": 10}, {"k": 20}, {"k": MaxKey()}]
OWNERS = ["sh-a", "sh-b", "sh-a"]


@pytest.fixture(scope="module")
def served(module_sandbox_server: Any) -> Iterator[tuple[Connection, Sent, list[dict[str, Any]]]]:
    handle = module_sandbox_server("7.0")
    for shard in SHARDS:
        handle.sandbox.cluster.add_shard(shard, f"{shard}/{shard}-0:27018", ())
    for ns in ("d.a", "d.b"):
        handle.sandbox.cluster.create_collection(ns, {"k": 1}, bounds=BOUNDS, shards=OWNERS)
    sent = Sent()
    with connect(handle.uri, listeners=[sent]) as conn:
        bases = [
            {"uuid": conn.client.config.collections.find_one({"_id": ns})["uuid"]}
            for ns in ("d.a", "d.b")
        ]
        yield conn, sent, bases


def _reader(batch: ChunkBatch, bases: list[dict[str, Any]], log: list[str]) -> Any:
    def read() -> list[Any]:
        log.append("run")
        out = []
        for base in bases:
            n = batch.count({**base, "shard": "sh-a"})
            batch.when_real(lambda n=n: log.append(f"effect {n}"))
            out.append((n, batch.find({**base, "min": {"$gte": {"k": 10}}}, {"_id": 0, "min": 1})))
        return out

    return read


def test_a_prefetched_reader_runs_once_with_the_real_answers(
    served: tuple[Connection, Sent, list[dict[str, Any]]],
) -> None:
    conn, _, bases = served
    log: list[str] = []
    batch = ChunkBatch(conn)
    batch.prefetch(bases)
    got = batch.replay(_reader(batch, bases, log))
    assert got == [(2, [{"min": {"k": 10}}, {"min": {"k": 20}}])] * 2
    assert log == ["run", "effect 2", "effect 2"]
    assert batch.commands == 2  # the count aggregate, the fetch of the small ones


def test_a_reader_that_meets_unread_namespaces_keeps_only_its_real_run(
    served: tuple[Connection, Sent, list[dict[str, Any]]],
) -> None:
    conn, _, bases = served
    log: list[str] = []
    batch = ChunkBatch(conn)
    got = batch.replay(_reader(batch, bases, log))
    assert got == [(2, [{"min": {"k": 10}}, {"min": {"k": 20}}])] * 2
    # a rehearsal with answers withheld (its effects dropped), then one kept
    assert log == ["run", "run", "effect 2", "effect 2"]
    assert batch.commands == 2  # the count aggregate, the fetch of the small ones


def test_a_measure_the_rehearsal_did_not_send_is_sent_by_the_run(
    served: tuple[Connection, Sent, list[dict[str, Any]]],
) -> None:
    conn, sent, bases = served
    sizes = ChunkSizes(conn, max_measured=1)
    sizes.read_collections(["d.a"])
    sizes.batch.prefetch(bases[:1])
    runs: list[int | None] = []

    def read() -> int | None:
        sizes.count({**bases[0]})
        (measured,) = sizes.measure("d.a", [({"k": 10}, {"k": 20})])
        runs.append(measured)
        return measured

    sent.clear()
    found = sizes.batch.replay(read)
    assert runs[0] is None and found is not None  # the rehearsal's stand-in, then the run's
    assert len(runs) == 2
    assert sent.names["dataSize"] == 1
    # measured: a later rehearsal is answered from it, and kept as the run
    runs.clear()
    assert sizes.batch.replay(read) == found
    assert runs == [found]
    assert sent.names["dataSize"] == 1
