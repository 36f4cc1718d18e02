"""Counts and finds on a small namespace's chunks answered in memory (ChunkBatch reads the
namespace whole once, zonectl.model.chunk_match answers) against the server's own answers:
hypothesis draws chunk layouts (single-field, compound and hashed keys, MinKey/MaxKey
bounds, three shards, jumbo flags) on a sandbox served over TCP, and queries of every shape
the readers send; the local answer must equal what pymongo reads from config.chunks, and
no command may be sent for it. On 5.0 and 8.0 (chunks by uuid; the sandbox has no 4.4)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from bson import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st
from served_kit import Served, served

from zonectl.model.keys import sort_key
from zonectl.mongo.chunk_batch import SMALL, ChunkBatch
from zonectl.mongo.connect import Connection

SHARDS = ("sh-a", "sh-b", "sh-c")
KEYS = {"single": {"k": 1}, "compound": {"a": 1, "b": 1}, "hashed": {"h": "hashed"}}
# What the readers project (impact, forecast, plan checks, key sample).
PROJECTIONS = [
    {"_id": 0, "min": 1, "max": 1, "shard": 1, "estimatedDataSizeBytes": 1},
    {"_id": 0, "min": 1, "max": 1, "shard": 1, "jumbo": 1},
    {"_id": 0, "min": 1, "max": 1, "shard": 1, "jumbo": 1, "estimatedDataSizeBytes": 1},
    {"min": 1},
]
_names = itertools.count()
Layout = tuple[str, list[dict[str, Any]], list[str], list[int]]  # kind, bounds, owners, jumbo


@pytest.fixture(scope="module")
def servers(module_sandbox_server: Any) -> Iterator[Served]:
    """A served sandbox and an open connection per version."""
    with served(module_sandbox_server, ("5.0", "8.0"), dict.fromkeys(SHARDS, ())) as out:
        yield out


_scalars = st.one_of(
    st.integers(-50, 50),
    st.integers(-50, 50).map(Int64),
    st.integers(-200, 200).map(lambda n: n / 4),
    st.text(alphabet="abcé", max_size=2),
)


def _values(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    if kind == "single":
        return st.builds(lambda v: {"k": v}, _scalars)
    if kind == "hashed":
        return st.builds(lambda v: {"h": Int64(v)}, st.integers(-(2**63), 2**63 - 1))
    b = st.one_of(_scalars, st.just(MinKey()))  # the config server pads with MinKey
    return st.builds(lambda a, b: {"a": a, "b": b}, _scalars, b)


@st.composite
def layouts(draw: st.DrawFn) -> Layout:
    """(kind, bounds from the all-MinKey to the all-MaxKey document, owner per chunk,
    indexes of the jumbo chunks)."""
    kind = draw(st.sampled_from(sorted(KEYS)))
    inner = draw(st.lists(_values(kind), max_size=min(SMALL, 12) - 1))
    unique = {sort_key(v): v for v in inner}  # bounds are distinct in BSON order
    fields = list(KEYS[kind])
    bounds = [
        dict.fromkeys(fields, MinKey()),
        *(unique[k] for k in sorted(unique)),
        dict.fromkeys(fields, MaxKey()),
    ]
    n = len(bounds) - 1
    owners = draw(st.lists(st.sampled_from(SHARDS), min_size=n, max_size=n))
    jumbo = draw(st.lists(st.integers(0, n - 1), max_size=3, unique=True))
    return kind, bounds, owners, jumbo


def create(handle: Any, conn: Connection, layout: Layout) -> dict[str, Any]:
    """A new collection laid out as `layout` (its jumbo chunks marked): the filter of its
    chunks, {uuid}."""
    kind, bounds, owners, jumbo = layout
    ns = f"d.c{next(_names)}"
    store = handle.sandbox.cluster.create_collection(ns, KEYS[kind], bounds=bounds, shards=owners)
    for i in jumbo:
        store.set_jumbo(i, True)
    entry = conn.client.config.collections.find_one({"_id": ns})
    return {"uuid": entry["uuid"]}


@st.composite
def questions(draw: st.DrawFn, kind: str, bounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The filter's conditions after the namespace's equality, in the shapes the readers
    send: shard equality, $in, $nin; comparisons on min and max with document operands
    (chunk bounds, other keys, MinKey/MaxKey documents, a document with other fields);
    jumbo equality."""
    fields = list(KEYS[kind])
    operands = st.one_of(
        st.sampled_from(bounds),
        _values(kind),
        st.just(dict.fromkeys(fields, MinKey())),
        st.just(dict.fromkeys(fields, MaxKey())),
        st.builds(lambda v: {"z": v}, _scalars),  # field names are compared too
    )
    conds: dict[str, Any] = {}
    if draw(st.booleans()):
        names = st.lists(st.sampled_from(SHARDS), max_size=3, unique=True)
        conds["shard"] = draw(
            st.one_of(
                st.sampled_from(SHARDS),
                names.map(lambda n: {"$in": n}),
                names.map(lambda n: {"$nin": n}),
            )
        )
    for field in ("min", "max"):
        if draw(st.booleans()):
            ops = draw(
                st.lists(st.sampled_from(["$gt", "$gte", "$lt", "$lte"]), min_size=1, max_size=2)
            )
            conds[field] = {op: draw(operands) for op in ops}
    if draw(st.booleans()):
        conds["jumbo"] = draw(st.booleans())
    order = draw(st.permutations(list(conds)))
    return {k: conds[k] for k in order}


@settings(max_examples=80, deadline=None)
@given(
    version=st.sampled_from(["5.0", "8.0"]),
    layout=layouts(),
    data=st.data(),
)
def test_local_answers_equal_the_servers(
    servers: dict[str, tuple[Any, Connection]],
    version: str,
    layout: Layout,
    data: st.DataObject,
) -> None:
    kind, bounds, owners, _ = layout
    handle, conn = servers[version]
    base = create(handle, conn, layout)
    chunks = conn.client.config.chunks
    batch = ChunkBatch(conn)
    assert batch.replay(lambda: batch.count(base)) == len(owners)  # reads it whole
    sent = batch.commands
    for _ in range(5):
        rest = data.draw(questions(kind, bounds))
        query = {**base, **rest}
        assert batch.count(query) == chunks.count_documents(query), query
        fields = data.draw(st.sampled_from(PROJECTIONS))
        sort = data.draw(st.sampled_from([None, {"min": 1}, {"min": -1}]))
        # a limit comes with a sort, as the readers send it (unsorted, which chunks is free)
        limit = data.draw(st.sampled_from([None, 1, 2, 5])) if sort else None
        cursor = chunks.find(query, {**fields, "_id": 0})
        if sort:
            cursor = cursor.sort(list(sort.items()))
        if limit:
            cursor = cursor.limit(limit)
        expected = list(cursor)
        found = batch.find(query, fields, sort=sort, limit=limit)
        if sort is None:  # no order promised: the same chunks
            found.sort(key=lambda d: sort_key(d["min"]))
            expected.sort(key=lambda d: sort_key(d["min"]))
        assert found == expected, query
        unsharded = {**base, **{k: v for k, v in rest.items() if k != "shard"}}
        for shard, n in batch.count_by_shard(unsharded, SHARDS).items():
            assert n == chunks.count_documents({**unsharded, "shard": shard}), query
    assert batch.commands == sent  # every answer above came from the chunks read once
