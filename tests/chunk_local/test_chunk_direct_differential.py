"""The readers' direct questions to a small namespace's table (ChunkBatch.table, then
Chunks.places_in, straddler, count_in, shards_in, by_shard: keys computed once, no filter
parsed) against the generic path they stand for (ChunkBatch.count, find, count_by_shard,
straddling) and against pymongo's own query of config.chunks on a sandbox served over TCP:
hypothesis draws chunk layouts (single-field, compound and hashed keys, MinKey/MaxKey
bounds, jumbo chunks) and ranges (chunk edges, inside chunks, empty and reversed ranges,
all-MinKey and all-MaxKey bounds). The same documents in the same order with the same
fields in the same order, the same counts; no command sent. A rehearsal's table of a
namespace not read yet is WITHHELD and answers as count and find do then."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st
from served_kit import Served, served

from tests.chunk_local.test_chunk_match_differential import (
    KEYS,
    SHARDS,
    Layout,
    _values,
    create,
    layouts,
)
from zonectl.model.chunk_match import Chunks, kept_fields, parse_shape
from zonectl.model.keys import sort_key
from zonectl.mongo.chunk_batch import WITHHELD, ChunkBatch, straddling, straddling_in
from zonectl.mongo.connect import Connection

PROJECTIONS = [  # impact's, the forecast's, plan checks'
    {"_id": 0, "min": 1, "max": 1, "shard": 1, "estimatedDataSizeBytes": 1},
    {"_id": 0, "min": 1, "max": 1, "shard": 1, "jumbo": 1},
    {"_id": 0, "min": 1, "max": 1, "shard": 1, "jumbo": 1, "estimatedDataSizeBytes": 1},
]
_names = itertools.count()


@pytest.fixture(scope="module")
def servers(module_sandbox_server: Any) -> Iterator[Served]:
    with served(module_sandbox_server, ("5.0", "8.0"), dict.fromkeys(SHARDS, ())) as out:
        yield out


def _bound(draw: st.DrawFn, kind: str, bounds: list[dict[str, Any]]) -> dict[str, Any]:
    fields = list(KEYS[kind])
    return draw(
        st.one_of(
            st.sampled_from(bounds),  # chunk edges, the all-MinKey and all-MaxKey ones
            _values(kind),  # inside chunks
            st.just(dict.fromkeys(fields, MinKey())),
            st.just(dict.fromkeys(fields, MaxKey())),
        )
    )


def _items(docs: list[dict[str, Any]]) -> list[list[tuple[str, Any]]]:
    """Documents with their fields' order (dict equality ignores it)."""
    return [list(d.items()) for d in docs]


@settings(max_examples=60, deadline=None)
@given(version=st.sampled_from(["5.0", "8.0"]), layout=layouts(), data=st.data())
def test_direct_answers_equal_generic_and_server(
    servers: dict[str, tuple[Any, Connection]],
    version: str,
    layout: Layout,
    data: st.DataObject,
) -> None:
    kind, bounds, *_ = layout
    handle, conn = servers[version]
    base = create(handle, conn, layout)
    chunks = conn.client.config.chunks
    batch = ChunkBatch(conn)
    table = batch.replay(lambda: batch.table(base))  # withheld, read whole, then the table
    assert table is not None and table is not WITHHELD and table is batch.table(base)
    sent = batch.commands
    assert len(table) == batch.count(base) == chunks.count_documents(base)
    assert table.by_shard(SHARDS) == batch.count_by_shard(base, SHARDS)
    assert table.by_shard(SHARDS) == {
        s: chunks.count_documents({**base, "shard": s}) for s in SHARDS
    }
    for _ in range(4):
        lo = _bound(data.draw, kind, bounds)
        hi = _bound(data.draw, kind, bounds)  # at or below lo sometimes: an empty range
        lo_key, hi_key = sort_key(lo), sort_key(hi)
        fields = data.draw(st.sampled_from(PROJECTIONS))
        keep = kept_fields(fields)
        assert keep is not None
        inside = {**base, "min": {"$gte": lo, "$lt": hi}}
        assert table.count_in(lo_key, hi_key) == batch.count(inside)
        assert table.count_in(lo_key, hi_key) == chunks.count_documents(inside)
        by_shard = table.shards_in(lo_key, hi_key)
        for shard in SHARDS:
            n = chunks.count_documents({**inside, "shard": shard})
            assert by_shard.get(shard, 0) == n == batch.count({**inside, "shard": shard})
        assert all(by_shard.values())  # only the shards with chunks in the range
        off = data.draw(st.lists(st.sampled_from(SHARDS), max_size=3, unique=True))
        flag = data.draw(st.sampled_from([None, True, False]))
        query: dict[str, Any] = {**inside, "shard": {"$nin": off}}
        if flag is not None:
            query["jumbo"] = flag
        direct = table.docs(table.places_in(lo_key, hi_key, off=off, jumbo=flag), keep)
        assert _items(direct) == _items(batch.find(query, fields))
        # the server's order of an unsorted find is free; with sort {min: 1} it is the one
        expected = list(chunks.find(query, {**fields, "_id": 0}).sort("min", 1))
        assert _items(direct) == _items(expected)
        inclusive = data.draw(st.booleans())
        direct = straddling_in(table, lo, lo_key, keep, inclusive=inclusive)
        assert _items(direct) == _items(straddling(batch, base, lo, fields, inclusive=inclusive))
        if not all(isinstance(v, MinKey) for v in lo.values()):
            cmp = "$gte" if inclusive else "$gt"
            server = {**base, "min": {"$lt": lo}, "max": {cmp: lo}}
            expected = list(chunks.find(server, {**fields, "_id": 0}).sort("min", -1).limit(1))
            assert _items(direct) == _items(expected)
        else:
            assert direct == []
    assert batch.commands == sent  # every answer from the chunks read once


def test_withheld_in_a_rehearsal_answers_as_count_and_find(
    servers: dict[str, tuple[Any, Connection]],
) -> None:
    """A namespace not read yet: in a rehearsal its table is WITHHELD (the rehearsal is not
    the run; the namespace is read with the next round), whose answers are the generic
    path's stand-ins; outside one, None (ask count and find)."""
    handle, conn = servers["8.0"]
    ns = f"d.c{next(_names)}"
    bounds = [{"k": MinKey()}, {"k": 10}, {"k": 20}, {"k": MaxKey()}]
    handle.sandbox.cluster.create_collection(ns, {"k": 1}, bounds=bounds, shards=list(SHARDS))
    entry = conn.client.config.collections.find_one({"_id": ns})
    base = {"uuid": entry["uuid"]}
    keep = kept_fields(PROJECTIONS[0])
    assert keep is not None
    seen: list[Any] = []

    def reader() -> int:
        table = batch.table(base)
        seen.append(table)
        assert table is not None
        lo, hi = sort_key({"k": 5}), sort_key({"k": 25})
        assert table.count_in(lo, hi) == batch.count({**base, "min": {"$gte": {"k": 5}}})
        if table is WITHHELD:
            assert table.docs(table.places_in(lo, hi), keep) == []
            assert straddling_in(table, {"k": 5}, lo, keep, inclusive=True) == []
            assert table.by_shard(SHARDS) == dict.fromkeys(SHARDS, 0)
        return table.count_in(lo, hi)

    batch = ChunkBatch(conn)
    assert batch.replay(reader) == 2  # {k: 10} and {k: 20}, read whole once
    assert seen[0] is WITHHELD and seen[-1] is not WITHHELD
    fresh = ChunkBatch(conn)
    assert fresh.table(base) is None  # outside a rehearsal: count and find read it
    assert fresh.count(base) == 3
    assert fresh.table(base) is not None


@st.composite
def loose_chunks(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Chunk documents that need not tile the key space (gaps, overlaps, max below min):
    what Chunks.of accepts, so the direct questions must answer as the filters for any."""
    keys = st.integers(-6, 6).map(lambda v: {"k": v})
    mins = draw(st.lists(keys, max_size=8, unique_by=lambda d: d["k"]))
    return [
        {
            "min": lo,
            "max": draw(keys),
            "shard": draw(st.sampled_from(SHARDS)),
            **({"jumbo": draw(st.booleans())} if draw(st.booleans()) else {}),
        }
        for lo in mins
    ]


@settings(max_examples=200, deadline=None)
@given(docs=loose_chunks(), lo=st.integers(-7, 7), hi=st.integers(-7, 7), data=st.data())
def test_direct_answers_equal_the_filters_for_any_chunks(
    docs: list[dict[str, Any]], lo: int, hi: int, data: st.DataObject
) -> None:
    """Pure: Chunks' direct questions against its own count and find of the same filters."""
    table = Chunks.of(docs)
    assert table is not None
    low, high = {"k": lo}, {"k": hi}
    lo_key, hi_key = sort_key(low), sort_key(high)
    fields = data.draw(st.sampled_from(PROJECTIONS))
    keep = kept_fields(fields)
    assert keep is not None
    inside = [("min", {"$gte": low, "$lt": high})]
    assert table.count_in(lo_key, hi_key) == table.count(inside)
    for shard, n in table.shards_in(lo_key, hi_key).items():
        assert n == table.count([*inside, ("shard", shard)])
    off = data.draw(st.lists(st.sampled_from(SHARDS), max_size=3, unique=True))
    flag = data.draw(st.sampled_from([None, True, False]))
    conds = [*inside, ("shard", {"$nin": off})] + ([("jumbo", flag)] if flag is not None else [])
    shape = parse_shape(fields, None, None)
    assert shape is not None
    places = table.places_in(lo_key, hi_key, off=off, jumbo=flag)
    assert _items(table.docs(places, keep)) == _items(table.find(conds, shape) or [])
    for inclusive in (True, False):
        at = table.straddler(lo_key, inclusive=inclusive)
        by_filter = [("min", {"$lt": low}), ("max", {"$gte" if inclusive else "$gt": low})]
        found = table.find(by_filter, parse_shape(fields, {"min": -1}, 1) or shape)
        assert _items([] if at is None else table.docs([at], keep)) == _items(found or [])
    assert table.by_shard(SHARDS) == {s: table.count([("shard", s)]) for s in SHARDS}
