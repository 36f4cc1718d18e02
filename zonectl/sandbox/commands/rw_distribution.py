"""analyzeShardKey's readWriteDistribution for one collection and key: the stored samples
of the collection (config.sampledQueries and config.sampledQueriesDiff, this collection
UUID only) measured against the key's ranges (sampling/distribution.py has the rules).

Split points (analyzeShardKeyNumRanges - 1 of them) come from the data, as the server's
come from a $sample of the documents sorted by the key: the chunk bounds weighted by their
document counts when the key starts with the live key's first field, the stored documents
of an unsharded collection; where those give fewer points than ranges (a candidate key over
simulated chunks, whose documents the sandbox does not hold, or a few big chunks) the key
values the sampled queries name fill in. That last part is a guess of what the documents
hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bson.min_key import MinKey

from zonectl.sandbox.commands.query_analyzer import collection_uuid
from zonectl.sandbox.keyorder import encode
from zonectl.sandbox.sampling.distribution import (
    NUM_RANGES,
    Ranges,
    read_distribution,
    write_distribution,
)
from zonectl.sandbox.sampling.sampler import SAMPLED_DIFFS, SAMPLED_QUERIES
from zonectl.sandbox.sampling.targeting import target

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox


def read_write_distribution(sandbox: Sandbox, ns: str, key: Mapping[str, Any]) -> dict[str, Any]:
    coll_uuid = collection_uuid(sandbox, ns)
    samples = _stored(sandbox, SAMPLED_QUERIES, ns, coll_uuid)
    diffs = _stored(sandbox, SAMPLED_DIFFS, ns, coll_uuid)
    ranges = Ranges(key, _split_points(sandbox, ns, key, samples))
    return {
        "readDistribution": read_distribution(samples, key, ranges),
        "writeDistribution": write_distribution(samples, diffs, key, ranges),
    }


def _stored(sandbox: Sandbox, name: str, ns: str, coll_uuid: Any) -> list[Mapping[str, Any]]:
    coll = sandbox.catalog.get(name)
    if coll is None:
        return []
    return [d for d in coll if d.get("ns") == ns and d.get("collectionUuid") == coll_uuid]


def _split_points(
    sandbox: Sandbox, ns: str, key: Mapping[str, Any], samples: list[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    fields = list(key)
    weighted = _from_chunks(sandbox, ns, fields) or _from_documents(sandbox, ns, fields)
    if len(weighted) < NUM_RANGES - 1:
        # Fewer data points than ranges (a few chunks hold many distinct values the sandbox
        # does not materialise): the values the queries name stand in for the rest, with
        # the same total weight as the data's. A guess (docs/sandbox-fidelity.md).
        queried = _from_samples(samples, key)
        scale = sum(w for _, w in weighted) / len(queried) if weighted and queried else 1.0
        weighted += [(point, scale) for point, _ in queried]
    if not weighted:
        return []
    weighted.sort(key=lambda p: encode(tuple(p[0].get(f) for f in fields)))
    total = sum(w for _, w in weighted)
    points, seen, k = [], 0.0, 1
    for point, weight in weighted:
        seen += weight
        while k < NUM_RANGES and seen >= total * k / NUM_RANGES:
            points.append(point)
            k += 1
    while len(points) < NUM_RANGES - 1:
        points.append(weighted[-1][0])
    return points[: NUM_RANGES - 1]


Weighted = list[tuple[dict[str, Any], float]]


def _from_chunks(sandbox: Sandbox, ns: str, fields: list[str]) -> Weighted:
    store = sandbox.cluster.chunks(ns)
    doc = sandbox.cluster.collection_doc(ns)
    if store is None or doc is None or next(iter(doc["key"])) != fields[0]:
        return []
    out = []
    for i in range(1, len(store)):
        bound = store.min_at(i)
        out.append(({f: bound.get(f, MinKey()) for f in fields}, float(store.count_at(i - 1) or 1)))
    return out


def _from_documents(
    sandbox: Sandbox, ns: str, fields: list[str]
) -> list[tuple[dict[str, Any], float]]:
    if sandbox.cluster.is_sharded(ns):
        return []
    coll = sandbox.catalog.get(ns)
    if coll is None:
        return []
    return [({f: d.get(f) for f in fields}, 1.0) for d in coll]


def _from_samples(
    samples: list[Mapping[str, Any]], key: Mapping[str, Any]
) -> list[tuple[dict[str, Any], float]]:
    out = []
    fields = list(key)
    for doc in samples:
        cmd = doc.get("cmd") or {}
        query = cmd.get("filter", cmd.get("query"))
        if query is None and isinstance(cmd.get("updates"), list) and cmd["updates"]:
            query = cmd["updates"][0].get("q")
        if query is None and isinstance(cmd.get("deletes"), list) and cmd["deletes"]:
            query = cmd["deletes"][0].get("q")
        where = target(query or {}, key, cmd.get("let"))
        if where.point is not None:
            out.append((dict(zip(fields, where.point, strict=True)), 1.0))
    return out
