"""Namespaces read whole together (zonectl.mongo.whole_reads, through ChunkBatch): hypothesis
draws clusters of namespaces of 1 to SMALL + 9 chunks, with a uuid of no collection and a
second spelling of a uuid (UUID and subtype-4 Binary) asked beside them; every count, count
by shard and find equals what pymongo reads from config.chunks, a namespace of at most SMALL
chunks is answered in memory afterwards and a bigger one by the server, and the commands sent
do not depend on how many namespaces were asked. Served over TCP, 7.0."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from bson import Binary
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.mongo.chunk_batch import SMALL, ChunkBatch
from zonectl.mongo.connect import Connection, connect

SHARDS = ("sh-a", "sh-b", "sh-c")
FIELDS = {"_id": 0, "min": 1, "max": 1, "shard": 1}
_names = itertools.count()


@pytest.fixture(scope="module")
def served(module_sandbox_server: Any) -> Iterator[tuple[Any, Connection]]:
    handle = module_sandbox_server("7.0")
    for shard in SHARDS:
        handle.sandbox.cluster.add_shard(shard, f"{shard}/{shard}-0:27018", ())
    # uuids decoded as UUID, so a subtype-4 Binary is a second spelling of one
    with connect(f"{handle.uri}?uuidRepresentation=standard") as conn:
        yield handle, conn


def _questions(base: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("count", base),
        ("count", {**base, "shard": "sh-b"}),
        ("count", {**base, "min": {"$gte": {"k": 3}}}),
        ("find", {**base, "shard": {"$nin": ["sh-a"]}, "min": {"$lt": {"k": 9}}}),
        ("last", base),
        ("by shard", base),
    ]


def _ask(batch: ChunkBatch, kind: str, query: dict[str, Any]) -> Any:
    if kind == "count":
        return batch.count(query)
    if kind == "find":
        return sorted(batch.find(query, FIELDS), key=lambda d: str(d["min"]))
    if kind == "by shard":
        return batch.count_by_shard(query, SHARDS)
    return batch.find(query, FIELDS, sort={"min": -1}, limit=1)


def _expected(conn: Connection, kind: str, query: dict[str, Any]) -> Any:
    chunks = conn.client.config.chunks
    if kind == "count":
        return chunks.count_documents(query)
    if kind == "find":
        return sorted(chunks.find(query, FIELDS), key=lambda d: str(d["min"]))
    if kind == "by shard":
        return {s: chunks.count_documents({**query, "shard": s}) for s in SHARDS}
    return list(chunks.find(query, FIELDS).sort("min", -1).limit(1))


def _create(handle: Any, conn: Connection, n: int) -> dict[str, Any]:
    ns = f"w.c{next(_names)}"
    bounds = [{"k": MinKey()}, *({"k": i} for i in range(1, n)), {"k": MaxKey()}]
    owners = [SHARDS[i % 3] for i in range(n)]
    handle.sandbox.cluster.create_collection(ns, {"k": 1}, bounds=bounds, shards=owners)
    return {"uuid": conn.client.config.collections.find_one({"_id": ns})["uuid"]}


@settings(max_examples=12, deadline=None)
@given(sizes=st.lists(st.sampled_from([1, 2, SMALL - 1, SMALL, SMALL + 1, SMALL + 9]), min_size=1))
def test_namespaces_read_together_answer_as_the_server(
    served: tuple[Any, Connection], sizes: list[int]
) -> None:
    handle, conn = served
    bases = [_create(handle, conn, n) for n in sizes]
    first = bases[0]["uuid"]
    assert isinstance(first, uuid.UUID)
    bases.append({"uuid": Binary(first.bytes, 4)})  # the first one, spelled otherwise
    bases.append({"uuid": uuid.UUID(int=len(sizes))})  # no collection: no chunk
    chunks = [*sizes, sizes[0], 0]
    batch = ChunkBatch(conn)
    batch.prefetch(bases)
    questions = [q for base in bases for q in _questions(base)]
    got = batch.replay(lambda: [_ask(batch, kind, query) for kind, query in questions])
    assert got == [_expected(conn, kind, query) for kind, query in questions]
    # one aggregate counting every namespace, one find of the small ones' chunks, one
    # aggregate of the big ones' reads: whatever the number of namespaces
    sent = 1 + any(0 < n <= SMALL for n in chunks) + any(n > SMALL for n in chunks)
    assert batch.commands == sent
    for i, (base, n) in enumerate(zip(bases, chunks, strict=True)):
        if i == len(sizes):
            continue  # the second spelling: its question, by its BSON, is the first one's
        query = {**base, "min": {"$gt": {"k": 1}}, "shard": "sh-c"}
        assert batch.count(query) == conn.client.config.chunks.count_documents(query)
        assert batch.commands == sent + int(n > SMALL)  # a small namespace's from memory
        sent = batch.commands
