"""Targeted chunk reads for impact estimates: per changed range, an indexed count of its
chunks, the ones off its zone's shards and the one straddling its min, by `uuid` (5.0+) or
`ns` (4.4), reference §2.3; their bytes from zonectl.mongo.chunk_sizes, as the forecast's."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import ClusterState
from zonectl.mongo.chunk_batch import ChunkBatch, straddling
from zonectl.mongo.chunk_sizes import ChunkSizes
from zonectl.mongo.connect import Connection
from zonectl.plan.impact import SizeOf, make_impacts, zone_shards_after
from zonectl.plan.ops import Impact
from zonectl.plan.plan import Plan

_FIELDS = {"_id": 0, "min": 1, "max": 1, "shard": 1, "estimatedDataSizeBytes": 1}


def _chunk_filter(actual: ClusterState, ns: str) -> dict[str, Any] | None:
    coll = actual.collections.get(ns)
    if coll is None:
        return None  # unsharded: no chunks to move
    major = int(actual.version.split(".")[0]) if actual.version[:1].isdigit() else 7
    if major >= 5 and coll.uuid is not None:
        return {"uuid": coll.uuid}
    return {"ns": ns}


def read_impact_chunks(
    batch: ChunkBatch, actual: ClusterState, plan: Plan
) -> tuple[dict[int, list[Mapping[str, Any]]], dict[int, int]]:
    """Per range op, the chunks that decide its impact, by indexed queries only: the one
    chunk that starts before the range and may cross into it, and for an assignment the
    chunks inside it on a shard outside its zone ({uuid, shard, min} index). Also per op
    how many chunks inside it were counted (the {uuid, min} index) but not read: a range
    that covers most of a collection costs a count, not its documents. All sent together
    (ChunkBatch.replay): one aggregate for every op of the plan."""
    zones = zone_shards_after(plan, actual)

    changes = [c for op in plan.ops if (c := op.range_change()) is not None]
    batch.prefetch(b for c in changes if (b := _chunk_filter(actual, c.ns)) is not None)

    def read() -> tuple[dict[int, list[Mapping[str, Any]]], dict[int, int]]:
        found: dict[int, list[Mapping[str, Any]]] = {}
        unread: dict[int, int] = {}
        for index, op in enumerate(plan.ops):
            change = op.range_change()
            if change is None:
                continue
            base = _chunk_filter(actual, change.ns)
            if base is None:
                continue
            inside = {**base, "min": {"$gte": change.min, "$lt": change.max}}
            total = batch.count(inside)
            off: list[Mapping[str, Any]] = []
            if op.moves == "migrates":
                holders = sorted(zones.get(change.zone, frozenset()))
                off = list(batch.find({**inside, "shard": {"$nin": holders}}, _FIELDS))
            found[index] = [*straddling(batch, base, change.min, _FIELDS, inclusive=True), *off]
            unread[index] = total - len(off)
        return found, unread

    return batch.replay(read)


def _migrating(plan: Plan) -> list[str]:
    """The namespaces whose chunks a range op of the plan makes migrate (its assignments)."""
    return sorted(
        {c.ns for op in plan.ops if (c := op.range_change()) is not None and op.moves == "migrates"}
    )


def read_chunk_sizes(conn: Connection, actual: ClusterState, plan: Plan) -> dict[str, int]:
    """Max chunk size per namespace with range ops: the collection's maxChunkSizeBytes, else
    the `chunksize` setting in MB (reference §2.5); absent namespaces use the default."""
    names = _migrating(plan)
    if not names:
        return {}
    config = conn.client.config
    try:
        setting = config.settings.find_one({"_id": "chunksize"})
        per_coll = {
            d["_id"]: d["maxChunkSizeBytes"]
            for d in config.collections.find(
                {"_id": {"$in": names}, "maxChunkSizeBytes": {"$exists": True}},
                {"maxChunkSizeBytes": 1},
            )
        }
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: reading chunk size failed: {redact(str(exc))}") from None
    sizes: dict[str, int] = {}
    for ns in names:
        if ns in per_coll:
            sizes[ns] = int(per_coll[ns])
        elif setting and setting.get("value"):
            sizes[ns] = int(setting["value"]) * 1024 * 1024
    return sizes


def read_impacts(
    conn: Connection, actual: ClusterState, plan: Plan, sizes: ChunkSizes | None = None
) -> dict[int, Impact]:
    """Impact per range op; bytes from `sizes`, the one size source (the plan passes the
    forecast's, so both say the same bytes for the same chunks)."""
    sizes = sizes if sizes is not None else ChunkSizes(conn)
    sizes.read_collections([c.ns for op in plan.ops if (c := op.range_change()) is not None])
    shards = [s.id for s in actual.shards]
    names = _migrating(plan)
    sizes.batch.prefetch(b for ns in names if (b := sizes.chunk_filter(ns)) is not None)

    def read() -> tuple[dict[int, list[Mapping[str, Any]]], dict[int, int]]:
        for ns in names:  # the estimates' per-shard counts, in the same aggregate
            if sizes.chunk_filter(ns) is not None:
                sizes.shard_counts(ns, shards)
        return read_impact_chunks(sizes.batch, actual, plan)

    chunks, unread = sizes.batch.replay(read)

    def size_of(ns: str) -> SizeOf:
        def size(lo: Mapping[str, Any], hi: Mapping[str, Any], shard: str, share: float) -> int:
            (measured,) = sizes.measure(ns, [(lo, hi)])
            if measured is not None:
                return measured
            return int(sizes.estimate(ns, shard, shards)[0] * share)

        return size

    impacts = make_impacts(plan, actual, chunks, read_chunk_sizes(conn, actual, plan), size_of)
    return {
        i: dataclasses.replace(impact, chunks=impact.chunks + unread.get(i, 0))
        for i, impact in impacts.items()
    }
