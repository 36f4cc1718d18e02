"""The collection pipeline's fast paths answer exactly what the plain evaluation answers.

A pipeline on a collection decodes only the fields its first reading stage needs and lets
the decoding stand for a leading plain `$project` (zonectl/sandbox/query/dependencies.py);
a `$sort` in index order walks the index. Putting `{$match: {}}` after the first stage
turns all of that off (the documents are decoded whole, filtered, sorted in memory and
projected by the stage), so every generated pipeline must answer the same documents, or
the same error, either way; on config.chunks (raw stored bytes) and on a plain collection.
A `$group` counting chunks by uuid after a `$match` on uuids is answered from the index's
counts; zonectl's count of chunks by namespace is also checked against counts by hand.
"""

from __future__ import annotations

import uuid
from typing import Any

import bson
import pytest
from bson import Binary, Int64, MaxKey, MinKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pymongo.errors import OperationFailure

from zonectl.mongo.whole_reads import WholeReads
from zonectl.sandbox.codec import CODEC
from zonectl.sandbox.keyorder import compare, encode
from zonectl.sandbox.state import Sandbox

SHARDS = ("s0", "s1", "s2")
SIZES = {"app.a": 70, "app.b": 7, "app.c": 1}  # app.a has more chunks than a whole read takes
DOCS = [  # fields out of name order, as a projection must keep them
    {"_id": 1, "shard": "s1", "min": {"x": 3}, "b": {"c": 1, "d": [1, 2]}, "a": 5},
    {"b": [{"c": 2}, {"c": 3}], "_id": 2, "a": -1, "e": None},
    {"_id": 3, "n": 4, "max": MaxKey(), "min": MinKey(), "c": [1, 2], "a": Int64(7)},
    {"_id": 4, "e": "text", "b": {"c": {"d": 1}}, "a": 2.5, "jumbo": True},
    {"_x": 1, "shard": "s0", "a": [3, 4], "_id": 5, "chunks": []},
]


@pytest.fixture(scope="module")
def served(module_sandbox_server: Any) -> Any:
    sb = Sandbox("7.0")
    for shard in SHARDS:
        sb.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", ())
    for ns, n in SIZES.items():
        bounds: list[dict[str, Any]] = [{"x": MinKey()}, *({"x": i} for i in range(1, n))]
        bounds.append({"x": MaxKey()})
        owners = [SHARDS[(i * 7 + n) % 3] for i in range(n)]
        sb.cluster.create_collection(ns, {"x": 1}, bounds=bounds, shards=owners)
    handle = module_sandbox_server(sandbox=sb)
    handle.client.app.docs.insert_many([dict(d) for d in DOCS])
    return handle


def _uuids(client: Any) -> list[Any]:
    return [d["uuid"] for d in client.config.collections.find({}, sort=[("_id", 1)])]


ONE = st.sampled_from([1, True, 1.0, Int64(1)])
NAMES = {
    "chunks": ["min", "max", "shard", "jumbo", "lastmod", "history", "a"],
    "docs": ["a", "b", "e", "shard", "min", "max", "n", "c", "_x"],
}
DOTTED = ["min.x", "b.c", "b.c.d", "history.shard"]


@st.composite
def _projection(draw: Any, on: str) -> dict[str, Any]:
    dotted = DOTTED[: draw(st.sampled_from([0, 0, 0, 2, 4]))]
    names = draw(st.lists(st.sampled_from(NAMES[on] + dotted), min_size=1, max_size=5))
    spec: dict[str, Any] = {name: draw(ONE) for name in names}
    if draw(st.booleans()):
        spec["_id"] = draw(st.sampled_from([0, 1, False, True, 0.0]))
    extra = draw(st.sampled_from([None, None, None, "exclusion", "computed", "operator"]))
    if extra == "exclusion":  # mixing is refused (31254), whatever path parses it
        spec["e"] = 0
    elif extra == "computed":
        spec["k"] = draw(st.sampled_from(["$shard", "$min.x", {"$literal": 5}, "$$ROOT"]))
    elif extra == "operator":
        spec["a"] = {"$slice": 1}
    return spec


def _group(draw: Any) -> dict[str, Any]:
    by = [None, 5, "s", True, "$shard", "$a", "$uuid", "$uuid", "$uuid"]
    spec: dict[str, Any] = {"_id": draw(st.sampled_from(by))}
    for name, acc in draw(
        st.lists(
            st.sampled_from(
                [
                    ("n", {"$sum": 1}),
                    ("m", {"$sum": 1}),
                    ("one", {"$sum": draw(st.sampled_from([Int64(1), 1.0, True, 2]))}),
                    ("all", {"$push": "$$ROOT"}),
                    ("first", {"$first": "$min"}),
                    ("top", {"$max": "$a"}),
                    ("sum", {"$sum": "$a"}),
                ]
            ),
            max_size=3,
            unique_by=lambda p: p[0],
        )
    ):
        spec[name] = acc
    return spec


@st.composite
def _tail(draw: Any) -> list[dict[str, Any]]:
    k = draw(st.integers(-3, 80))
    choices = [
        {"$set": {"t": k}},
        {"$limit": draw(st.integers(0, 5))},
        {"$project": {"_id": 0, "n": 1, "c": {"$cond": [{"$lte": ["$n", k]}, "$all", []]}}},
        {"$project": {"y": {"$cmp": ["$n", k]}, "z": {"$gte": [k, draw(st.integers(-3, 80))]}}},
        {"$project": {"shard": 1, "w": {"$eq": ["$shard", "s1"]}}},
    ]
    return draw(st.lists(st.sampled_from(choices), max_size=2))


@st.composite
def _pipeline(draw: Any, uuids: list[Any]) -> tuple[str, list[dict[str, Any]]]:
    on_chunks = draw(st.booleans())
    if on_chunks:
        # one uuid, or several (a listed uuid's bytes as subtype 3, one of no collection)
        spellings = [*uuids, Binary(bytes(uuids[0]), 3), Binary(uuid.UUID(int=7).bytes, 4)]
        listed = st.lists(st.sampled_from(spellings), max_size=4).map(lambda u: {"$in": u})
        where: dict[str, Any] = {"uuid": draw(st.one_of(st.sampled_from(uuids), listed))}
        if draw(st.booleans()):
            where["shard"] = draw(st.sampled_from(SHARDS))
        if draw(st.booleans()):
            where["min"] = {draw(st.sampled_from(["$gte", "$lt"])): {"x": draw(st.integers(0, 9))}}
        sorts = [None, {"min": 1}, {"min": -1}]
    else:
        where = draw(st.sampled_from([{}, {"a": {"$gte": 0}}, {"_id": {"$in": [1, 3, 5]}}]))
        sorts = [None, {"_id": 1}, {"_id": -1}]
    stages: list[dict[str, Any]] = [{"$match": where}]
    sort = draw(st.sampled_from(sorts))
    if sort is not None:
        stages.append({"$sort": sort})
    for name in draw(st.lists(st.sampled_from(["$limit", "$skip"]), max_size=2)):
        stages.append({name: draw(st.integers(0, 70))})
    head = draw(st.sampled_from(["project", "project", "group", "none"]))
    if head == "project":
        stages.append({"$project": draw(_projection("chunks" if on_chunks else "docs"))})
    elif head == "group":
        stages.append({"$group": _group(draw)})
    stages += draw(_tail())
    return ("chunks" if on_chunks else "docs"), stages


def _answer(coll: Any, pipeline: list[dict[str, Any]]) -> Any:
    try:
        return [bson.encode(d, codec_options=CODEC) for d in coll.aggregate(pipeline)]
    except OperationFailure as exc:
        return ("error", exc.code, str(exc.details.get("errmsg") if exc.details else exc))


def _by_hand(coll: Any, pipeline: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The pipeline evaluated in the test from a find of its $match (and $sort), for the
    stages zonectl's chunk reads use; None for a pipeline with any other stage."""
    (where,) = pipeline[0].values()
    rest = pipeline[1:]
    sort = rest.pop(0)["$sort"] if rest and "$sort" in rest[0] else None
    docs = list(coll.find(where, sort=list(sort.items()) if sort else None))
    for stage in rest:
        ((name, arg),) = stage.items()
        if name in ("$limit", "$skip"):
            docs = docs[:arg] if name == "$limit" else docs[arg:]
        elif name == "$project" and arg == {"_id": 0, "n": 1, "c": _COND(arg)}:
            docs = [_cond(d, arg["c"]["$cond"][0]["$lte"][1]) for d in docs]
        elif name == "$project" and _plain_inclusion(arg):
            keep = {f for f, v in arg.items() if v == 1} | ({"_id"} if arg.get("_id", 1) else set())
            docs = [{f: v for f, v in d.items() if f in keep} for d in docs]
        elif name == "$group" and not str(arg["_id"]).startswith("$") and set(arg) <= _EASY:
            out: dict[str, Any] = {"_id": arg["_id"]}
            for field in arg:
                if field != "_id":
                    out[field] = {
                        "n": len(docs), "all": docs,
                        "first": docs[0].get("min") if docs else None,
                    }[field]  # fmt: skip
            docs = [out] if docs else []
        elif name == "$set":
            docs = [{**d, **arg} for d in docs]
        else:
            return None
    return docs


_EASY = {"_id", "n", "all", "first"}


def _plain_inclusion(spec: dict[str, Any]) -> bool:
    """Only top-level fields kept (and _id kept or not)."""
    plain = all("." not in f and v in (0, 1) and (v == 1 or f == "_id") for f, v in spec.items())
    return plain and (any(f != "_id" for f in spec) or spec == {"_id": 1})


def _cond(doc: dict[str, Any], k: int) -> dict[str, Any]:
    """{_id: 0, n: 1, c: {$cond: [{$lte: ["$n", k]}, "$all", []]}} on a $group's output."""
    out = {"n": doc["n"]} if "n" in doc else {}
    n = doc.get("n")  # missing or null sorts below every number
    if n is not None and n > k:
        out["c"] = []
    elif "all" in doc:
        out["c"] = doc["all"]
    return out


def _COND(arg: dict[str, Any]) -> Any:
    """The spec's own `c` when it is the $cond zonectl's whole read uses, else a marker."""
    cond = arg.get("c")
    shape = isinstance(cond, dict) and list(cond) == ["$cond"]
    return cond if shape and cond["$cond"][1:] == ["$all", []] else object()


def test_generated_pipelines_answer_as_the_plain_evaluation(served: Any) -> None:
    client = served.client
    uuids = _uuids(client)
    by_hand = []

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_pipeline(uuids))
    def check(case: tuple[str, list[dict[str, Any]]]) -> None:
        name, pipeline = case
        coll = client.config.chunks if name == "chunks" else client.app.docs
        plain = [pipeline[0], {"$match": {}}, *pipeline[1:]]
        answer = _answer(coll, pipeline)
        assert answer == _answer(coll, plain)
        expected = _by_hand(coll, pipeline)
        if expected is not None and answer and answer[0] != "error":
            assert answer == [bson.encode(d, codec_options=CODEC) for d in expected]
            by_hand.append(pipeline)

    check()
    assert len(by_hand) >= 20  # the hand evaluation covered a good share of the examples


def test_the_same_pipeline_in_a_union_answers_the_same(served: Any) -> None:
    """The sub-pipelines of one aggregate share a shape (a $project parsed once by its
    BSON): 1, 1.0, True and Int64(1) and each `_id` setting keep their meaning, and a
    projection refused alone is refused in a union."""
    client = served.client
    uuids = _uuids(client)
    specs = [
        {"min": 1, "shard": 1, "_id": 0},
        {"min": 1.0, "shard": True, "_id": 0},
        {"min": Int64(1), "shard": 1},
        {"shard": 1, "min": 1, "_id": 1},
        {"_id": 1},
        {"min.x": 1, "_id": 0},
    ]
    reads = [[{"$match": {"uuid": u}}, {"$project": s}] for u in uuids for s in specs]
    union = [*reads[0], *({"$unionWith": {"coll": "chunks", "pipeline": r}} for r in reads[1:])]
    plain = [d for r in reads for d in _answer(client.config.chunks, [r[0], {"$match": {}}, r[1]])]
    assert _answer(client.config.chunks, union) == plain
    bad = [{"$match": {"uuid": uuids[0]}}, {"$project": {"min": 1, "shard": 0}}]
    for pipeline in (bad, [*reads[0], {"$unionWith": {"coll": "chunks", "pipeline": bad}}]):
        assert _answer(client.config.chunks, pipeline) == (
            "error", 31254, "Cannot do exclusion on field shard in inclusion projection",
        )  # fmt: skip


@st.composite
def _count_by_uuid(draw: Any, uuids: list[Any]) -> list[dict[str, Any]]:
    """{$match: {uuid: {$in: [...]}, ...}}, then a $group by uuid summing constants (those
    of 1, which the index's counts answer, and others), then maybe a stage."""
    spellings = [*uuids, Binary(bytes(uuids[0]), 3), Binary(uuid.UUID(int=7).bytes, 4)]
    where: dict[str, Any] = {"uuid": {"$in": draw(st.lists(st.sampled_from(spellings)))}}
    if draw(st.booleans()):
        where["shard"] = draw(st.sampled_from([*SHARDS, {"$in": list(SHARDS[:2])}]))
    if draw(st.booleans()):
        where["min"] = {draw(st.sampled_from(["$gte", "$lt"])): {"x": draw(st.integers(0, 9))}}
    ones = st.sampled_from([1, 1, 1, Int64(1), 1.0, True, 2, "$x"])
    names = draw(st.lists(st.sampled_from(["n", "k", "c"]), max_size=3, unique=True))
    by = draw(st.sampled_from(["$uuid", "$uuid", "$uuid", "$shard", "uuid"]))
    group = {"_id": by, **{name: {"$sum": draw(ones)} for name in names}}
    return [{"$match": where}, {"$group": group}, *draw(_tail())]


def test_a_count_by_uuid_answers_as_the_plain_evaluation(served: Any) -> None:
    """The index's counts per uuid stand for the $group: the same documents in the same
    order as walking the chunks (and `$in` of one uuid's two spellings counts it once)."""
    client = served.client
    uuids = _uuids(client)

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_count_by_uuid(uuids))
    def check(pipeline: list[dict[str, Any]]) -> None:
        plain = [pipeline[0], {"$match": {}}, *pipeline[1:]]
        chunks = client.config.chunks
        assert _answer(chunks, pipeline) == _answer(chunks, plain)

    check()


def test_zonectls_chunk_count_by_namespace_answers_what_counts_give(served: Any) -> None:
    """zonectl.mongo.whole_reads' count read: one document per listed namespace with
    chunks (in no promised order), its chunk count; nothing for a uuid of no collection."""
    client = served.client
    listed = [*_uuids(client), Binary(uuid.UUID(int=7).bytes, 4)]
    whole = WholeReads([("uuid", u) for u in listed], client.codec_options)
    ((_, stages),) = whole.count_reads()
    got = sorted((str(d["_id"]), d["n"]) for d in client.config.chunks.aggregate(stages))
    counts = ((str(u), client.config.chunks.count_documents({"uuid": u})) for u in listed)
    assert got == sorted((u, n) for u, n in counts if n)
    assert sorted(n for _, n in got) == sorted(SIZES.values())


@given(st.uuids())
def test_a_uuids_key_is_its_bindata_subtype_4_key(value: uuid.UUID) -> None:
    assert encode(value) == encode(Binary(value.bytes, 4))


@given(st.integers(-(1 << 63), (1 << 63) - 1), st.integers(-(1 << 63), (1 << 63) - 1))
def test_two_int64s_compare_as_their_values(a: int, b: int) -> None:
    assert compare(a, b) == (a > b) - (a < b)
    assert compare(a, b) == (encode(a) > encode(b)) - (encode(a) < encode(b))


IDS = ["app.m", "app.b", 7, "app.z", "app.a", Int64(8), "db.x", "app.b.c"]


def test_a_find_by_listed_names_answers_as_the_matcher(served: Any) -> None:
    """`{_id: {$in: [names]}}` on a plain collection (config.collections by namespace) is
    answered from the `_id`s: the same documents, in the same natural order, as the
    matcher gives with a `$comment` beside it (a filter it does not answer that way)."""
    coll = served.client.app.names
    coll.insert_many([{"_id": i, "v": n} for n, i in enumerate(IDS)])
    names = st.sampled_from([i for i in IDS if isinstance(i, str)] + ["app.q", "", "7"])
    listed = st.lists(st.one_of(names, st.sampled_from([7, 8.0, None])), max_size=6)

    @settings(max_examples=60, deadline=None)
    @given(listed, st.booleans())
    def check(values: list[Any], projected: bool) -> None:
        fields = {"v": 1} if projected else None
        fast = list(coll.find({"_id": {"$in": values}}, fields))
        plain = list(coll.find({"_id": {"$in": values}, "$comment": "plain"}, fields))
        assert [bson.encode(d) for d in fast] == [bson.encode(d) for d in plain]
        assert coll.count_documents({"_id": {"$in": values}}) == len(plain)
        piped = coll.aggregate([{"$match": {"_id": {"$in": values}}}, {"$project": {"v": 1}}])
        assert [d["v"] for d in piped] == [d["v"] for d in plain]

    check()
