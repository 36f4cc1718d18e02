"""read_namespace_chunks against its earlier form (reference_read.py), on a sandbox served
over TCP (7.0 and 5.0: sizes from $shardedDataDistribution, or collStats and chunk counts):
hypothesis draws the shards' zones, collections (small ones read whole and answered in
memory, big ones asked of the server; jumbo chunks), zone ranges (touching, with gaps,
one over the whole key space, a zone no shard has), which of them changed and the dataSize
budget. Both read each namespace through one ChunkBatch replay, as `plan` does, with the
zones' shards given or not: the chunks, sizes, samples, loads, the size tally and the
aggregates sent must be the same."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st
from served_kit import Served, served

from tests.forecast_pure.reference_read import reference_read_namespace_chunks
from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.inputs import Range
from zonectl.mongo.chunk_batch import SMALL
from zonectl.mongo.chunk_sizes import ChunkSizes
from zonectl.mongo.connect import Connection
from zonectl.mongo.forecast_read import ZoneHolders, range_key, read_namespace_chunks

SHARDS = ("sh-a", "sh-b", "sh-c")
ZONES = ("hot", "cold", "warm")  # "warm": sometimes no shard has it
MIB = 1024 * 1024
_names = itertools.count()


@pytest.fixture(scope="module")
def servers(module_sandbox_server: Any) -> Iterator[Served]:
    with served(module_sandbox_server, ("7.0", "5.0"), dict.fromkeys(SHARDS, ())) as out:
        yield out


def _bound(v: Any) -> dict[str, Any]:
    return {"x": v}


@st.composite
def collections(draw: st.DrawFn) -> dict[str, Any]:
    """A collection's chunk bounds (MinKey to MaxKey), owners, jumbo flags and sizes."""
    big = draw(st.integers(0, 5)) == 0
    n = draw(st.integers(SMALL + 1, SMALL + 6)) if big else draw(st.integers(1, 6))
    points = sorted(draw(st.sets(st.integers(-40, 40), min_size=n - 1, max_size=n - 1)))
    bounds = [_bound(MinKey()), *(_bound(p) for p in points), _bound(MaxKey())]
    owners = [draw(st.sampled_from(SHARDS)) for _ in range(n)]
    sizes = [draw(st.integers(0, 200)) * MIB // 2 for _ in range(n)]
    counts = [size // draw(st.sampled_from([1000, 4096])) for size in sizes]  # documents
    jumbo = draw(st.lists(st.integers(0, n - 1), max_size=2, unique=True))
    return {"bounds": bounds, "owners": owners, "sizes": sizes, "counts": counts, "jumbo": jumbo}


@st.composite
def ranges(draw: st.DrawFn) -> list[Range]:
    """Zone ranges in key order, touching or with gaps; or one over the whole key space."""
    if draw(st.booleans()):
        return [(_bound(MinKey()), _bound(MaxKey()), draw(st.sampled_from(ZONES)))]
    cuts = sorted(draw(st.sets(st.integers(-45, 45), min_size=2, max_size=6)))
    out: list[Range] = []
    for lo, hi in itertools.pairwise(cuts):
        if draw(st.integers(0, 3)):  # else a gap
            out.append((_bound(lo), _bound(hi), draw(st.sampled_from(ZONES))))
    return out


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    layout = {s: frozenset(draw(st.sets(st.sampled_from(ZONES[:2]), max_size=2))) for s in SHARDS}
    if draw(st.booleans()):
        layout[SHARDS[0]] = frozenset({"warm"})
    colls = [(draw(collections()), draw(ranges())) for _ in range(draw(st.integers(1, 3)))]
    changed = [[draw(st.booleans()) for _ in rs] for _, rs in colls]
    return {
        "version": draw(st.sampled_from(["7.0", "5.0"])),
        "layout": layout,
        "colls": colls,
        "changed": changed,
        "budget": draw(st.sampled_from([0, 1, 3, 50])),
        "unsharded": draw(st.booleans()),  # a namespace that is not sharded is read too
    }


Reader = Callable[..., NamespaceChunks | None]


def _read(
    conn: Connection, case: dict[str, Any], names: list[str], reader: Reader, **kw: Any
) -> tuple[list[NamespaceChunks | None], dict[str, Any], int]:
    """As read_forecast reads: entries at once, statistics, prefetch, one replay."""
    sizes = ChunkSizes(conn, max_measured=case["budget"])
    sizes.read_collections(names)
    sizes.prepare(names)
    sizes.batch.prefetch(b for ns in names if (b := sizes.chunk_filter(ns)) is not None)
    wanted: dict[str, list[Range]] = {}
    changed: dict[str, set[Any]] = {}
    for ns, (_, rs), flags in zip(names, case["colls"], case["changed"], strict=False):
        wanted[ns] = rs
        changed[ns] = {range_key(lo, hi) for (lo, hi, _), on in zip(rs, flags, strict=True) if on}
    for ns in names[len(case["colls"]) :]:
        wanted[ns] = [(_bound(MinKey()), _bound(MaxKey()), "hot")]
    shards = list(case["layout"])
    found = sizes.batch.replay(
        lambda: [
            reader(sizes, ns, rs, case["layout"], shards, changed.get(ns, set()), **kw)
            for ns, rs in wanted.items()
        ]
    )
    return found, sizes.tally.as_dict(), sizes.batch.commands


@settings(max_examples=60, deadline=None)
@given(case=cases())
def test_the_read_matches_the_reference(
    servers: dict[str, tuple[Any, Connection]], case: dict[str, Any]
) -> None:
    handle, conn = servers[case["version"]]
    names = []
    for coll, _ in case["colls"]:
        ns = f"d.c{next(_names)}"
        store = handle.sandbox.cluster.create_collection(
            ns,
            {"x": 1},
            bounds=coll["bounds"],
            shards=coll["owners"],
            sizes=coll["sizes"],
            counts=coll["counts"],
        )
        for i in coll["jumbo"]:
            store.set_jumbo(i, True)
        names.append(ns)
    if case["unsharded"]:
        names.append(f"d.unsharded{next(_names)}")
    want = _read(conn, case, names, reference_read_namespace_chunks)
    assert _read(conn, case, names, read_namespace_chunks) == want
    holders = ZoneHolders(case["layout"])
    assert _read(conn, case, names, read_namespace_chunks, holders_of=holders) == want
    # the reads are worth comparing: chunks off their zone are found (over the examples)
    assert all(c is None or c.counts is not None for c in want[0])
