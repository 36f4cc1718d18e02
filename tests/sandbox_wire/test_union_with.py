"""`$unionWith` (4.4+) as a server answers it: each sub-pipeline runs on its collection as a
query of its own (so an index-served $match, $count, $sort and $limit answer exactly what
the same find or count would), the input first, then each union in turn; its spec is
checked (document_source_union_with.cpp) and every pipeline, sub-pipelines included, holds
at most 1,000 stages (pipeline.cpp validateCommon)."""

from __future__ import annotations

from typing import Any

import pymongo
import pytest
from bson import MaxKey, MinKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pymongo.errors import OperationFailure

from zonectl.sandbox.state import Sandbox

SHARDS = ("s0", "s1", "s2")


def _sandbox(version: str) -> Sandbox:
    sb = Sandbox(version)
    for shard in SHARDS:
        sb.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", ())
    for n, ns in ((40, "app.a"), (7, "app.b"), (1, "app.c")):
        bounds: list[dict[str, Any]] = [{"x": MinKey()}, *({"x": i} for i in range(1, n))]
        bounds.append({"x": MaxKey()})
        owners = [SHARDS[(i * 5 + n) % 3] for i in range(n)]
        sb.cluster.create_collection(ns, {"x": 1}, bounds=bounds, shards=owners)
    return sb


FIELDS = {"_id": 0, "min": 1, "shard": 1}


def _reads(uuids: list[Any]) -> st.SearchStrategy[list[tuple[str, dict[str, Any]]]]:
    """Counts and finds of the kinds zonectl batches: by uuid, shard, min range, and the
    reverse-sorted limit-1 lookup of a straddling chunk."""
    bound = st.integers(-2, 45)
    where = st.builds(
        lambda u, shard, lo, hi: {
            "uuid": u,
            **({"shard": shard} if shard else {}),
            **({"min": {"$gte": {"x": lo}, "$lt": {"x": hi}}} if lo is not None else {}),
        },
        st.sampled_from(uuids),
        st.sampled_from([None, "s0", {"$nin": ["s1"]}, {"$in": ["s0", "s2"]}]),
        st.one_of(st.none(), bound),
        bound,
    )
    read = st.tuples(st.sampled_from(["count", "find", "last"]), where)
    return st.lists(read, min_size=1, max_size=12)


def _stages(kind: str, where: dict[str, Any], i: int) -> list[dict[str, Any]]:
    if kind == "count":
        head: list[dict[str, Any]] = [{"$match": where}, {"$count": "n"}]
    elif kind == "find":
        head = [{"$match": where}, {"$sort": {"min": 1}}, {"$project": FIELDS}]
    else:
        head = [{"$match": where}, {"$sort": {"min": -1}}, {"$limit": 1}, {"$project": FIELDS}]
    return [*head, {"$set": {"q": i}}]


def _alone(client: Any, kind: str, where: dict[str, Any]) -> Any:
    chunks = client.config.chunks
    if kind == "count":
        return chunks.count_documents(where)
    if kind == "find":
        return list(chunks.find(where, FIELDS).sort("min", 1))
    return list(chunks.find(where, FIELDS).sort("min", -1).limit(1))


def test_a_chain_of_unions_answers_what_each_read_answers_alone(
    sandbox_server: Any, server_version: str
) -> None:
    sb = sandbox_server(sandbox=_sandbox(server_version))
    uuids = [d["uuid"] for d in sb.client.config.collections.find({}, sort=[("_id", 1)])]

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_reads(uuids))
    def check(reads: list[tuple[str, dict[str, Any]]]) -> None:
        branches = [_stages(kind, where, i) for i, (kind, where) in enumerate(reads)]
        head, *rest = branches
        pipeline = [*head, *({"$unionWith": {"coll": "chunks", "pipeline": b}} for b in rest)]
        got: dict[int, list[Any]] = {i: [] for i in range(len(reads))}
        order = []
        for doc in sb.client.config.chunks.aggregate(pipeline):
            order.append(doc["q"])
            got[doc.pop("q")].append(doc)
        assert order == sorted(order)  # the input first, then each union in turn
        for i, (kind, where) in enumerate(reads):
            if kind == "count":
                assert (got[i][0]["n"] if got[i] else 0) == _alone(sb.client, kind, where)
            else:
                assert got[i] == _alone(sb.client, kind, where)

    check()


@pytest.mark.parametrize(
    ("spec", "code", "says"),
    [
        ({"coll": "chunks", "bad": 1}, 40415, "BSON field '$unionWith.bad' is an unknown field."),
        (5, 9, "the $unionWith stage specification must be an object or string, but found"),
        ({"pipeline": []}, 9, "must have a pipeline with $documents as first stage"),
    ],
)
def test_a_malformed_union_is_refused_with_the_servers_error(
    sandbox_server: Any, spec: Any, code: int, says: str
) -> None:
    sb = sandbox_server()
    with pytest.raises(OperationFailure) as caught:
        list(sb.client.config.chunks.aggregate([{"$unionWith": spec}]))
    assert caught.value.code == code
    assert says in str(caught.value.details)


def test_a_pipeline_or_sub_pipeline_of_more_than_1000_stages_is_refused(
    sandbox_server: Any,
) -> None:
    sb = sandbox_server()
    empty = sb.client.app.empty  # the limit is checked whatever the documents
    fill = [{"$project": {"_id": 1}}]
    assert list(empty.aggregate(fill * 1000)) == []
    inner = [{"$unionWith": {"coll": "empty", "pipeline": fill * 1000}}]
    assert list(empty.aggregate(inner)) == []
    for pipeline in (fill * 1001, [{"$unionWith": {"coll": "empty", "pipeline": fill * 1001}}]):
        with pytest.raises(pymongo.errors.OperationFailure) as caught:
            list(empty.aggregate(pipeline))
        assert caught.value.code == 9  # FailedToParse
        assert "Pipeline length must be no longer than 1000 stages" in str(caught.value)


def test_the_limit_counts_the_stages_an_index_walk_answers(sandbox_server: Any) -> None:
    """A $sort in index order or a $count after a $match is answered by the index walk, and
    still counts as a stage: 1,001 stages are refused whatever the second one is (the
    server checks the length before it plans; pipeline.cpp validateCommon)."""
    sb = sandbox_server(sandbox=_sandbox("7.0"))
    chunks = sb.client.config.chunks
    uuid = sb.client.config.collections.find_one({"_id": "app.a"})["uuid"]
    match = {"$match": {"uuid": uuid}}  # the {uuid, min} index
    fill = [{"$project": {"_id": 1}}]
    for second in ({"$sort": {"min": 1}}, {"$sort": {"min": -1}}, {"$count": "n"}):
        tail = fill * 998 if "$sort" in second else [{"$project": {"n": 1}}] * 998
        assert list(chunks.aggregate([match, second, *tail]))
        with pytest.raises(pymongo.errors.OperationFailure) as caught:
            list(chunks.aggregate([match, second, *tail, *fill]))
        assert caught.value.code == 9  # FailedToParse
        assert "Pipeline length must be no longer than 1000 stages" in str(caught.value)


def test_list_cluster_catalog_is_an_unknown_stage_before_8_0_10(sandbox_server: Any) -> None:
    """$listClusterCatalog is new in 8.0.10 and 8.1 (manual, "New in version 8.0.10"): the
    8.0 profile (8.0.4) parses it as any server without it does."""
    sb = sandbox_server("8.0")
    assert sb.client.admin.command("buildInfo")["version"] == "8.0.4"
    with pytest.raises(OperationFailure) as caught:
        list(sb.client.admin.aggregate([{"$listClusterCatalog": {}}]))
    assert caught.value.code == 40324
    assert "Unrecognized pipeline stage name: '$listClusterCatalog'" in str(caught.value)
