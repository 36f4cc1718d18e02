"""Reads for `zonectl analyze`, all read-only: config metadata of the collections, their
chunks, listCollections (views, time-series), `$shardedDataDistribution` (6.0.3+), the last
day of config.changelog, and `analyzeShardKey` (7.0+) on each live shard key; the
per-collection reads for all collections at once (analyze_bulk)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.analyze.inputs import (
    AnalyzeInput,
    ChunkInfo,
    CollectionInput,
    KeyMetrics,
    Kind,
    Workload,
)
from zonectl.errors import ClusterError, redact
from zonectl.model.chunk_match import kept_fields
from zonectl.model.cluster import ClusterState, is_mongodb_own
from zonectl.model.desired import DesiredState
from zonectl.model.keys import sort_key
from zonectl.mongo.analyze_bulk import Reply, read_changes, read_chunk_infos, read_key_replies
from zonectl.mongo.chunk_batch import ChunkBatch, straddling, straddling_in
from zonectl.mongo.connect import Connection
from zonectl.mongo.drain_read import read_drains
from zonectl.mongo.shard_key_read import key_metrics, workload_of
from zonectl.mongo.state import WHOLE, read_config_documents
from zonectl.mongo.workload_read import with_workload
from zonectl.plan.impact import default_chunk_bytes
from zonectl.plan.patterns import is_pattern, matches

_CHUNK_FIELDS = {"_id": 0, "min": 1, "max": 1, "shard": 1, "jumbo": 1, "estimatedDataSizeBytes": 1}
_KEEP = kept_fields(_CHUNK_FIELDS)


def read_analyze_input(
    conn: Connection,
    desired: DesiredState | None,
    namespaces: Collection[str] | None,
    now: dt.datetime,
    boundaries: Mapping[str, Any],
    candidates: Sequence[Mapping[str, Any]] = (),
) -> AnalyzeInput:
    """Everything the rules need for `namespaces` (None: every sharded namespace but MongoDB's
    own, and every namespace the policy names, its patterns already expanded by
    `read_resolved`). A name in `namespaces` may be a pattern (`logs.*`): it selects among
    those same namespaces.
    `candidates`: keys to put beside each live key (`analyze --candidate`)."""
    docs = read_config_documents(conn, None)
    state = docs.cluster_state(conn)
    draining = [s.id for s in state.shards if s.draining]
    if draining:  # what each draining shard still holds, for the drain rules
        state = dataclasses.replace(state, drains=read_drains(conn, state, draining))
    # MongoDB's own sharded collections (config.system.sessions) only when named.
    live = {ns for ns in state.collections if not is_mongodb_own(ns)}
    known = live | set(desired.collections if desired else ())
    if namespaces:
        exact = {ns for ns in namespaces if not is_pattern(ns)}
        globs = [ns for ns in namespaces if is_pattern(ns)]
        targets = exact | {ns for ns in known if any(matches(g, ns) for g in globs)}
    else:
        targets = known
    try:
        distribution = _read_distribution(conn)
        sizes = _read_chunk_sizes(conn, state)
        bulk = _read_bulk(conn, state, targets, now)
        collections = {
            ns: with_workload(
                conn,
                _read_collection(conn, state, ns, distribution, sizes, bulk),
                docs.analyzers,
                candidates,
                now,
            )
            for ns in targets
        }
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: reading for analyze failed: {redact(str(exc))}") from None
    return AnalyzeInput(state, collections, desired, dict(boundaries))


@dataclass(frozen=True)
class _Bulk:
    """What analyze_bulk read for every sharded target at once."""

    changes: Mapping[str, Mapping[str, int]]
    chunks: Mapping[str, tuple[ChunkInfo, ...]]
    replies: Mapping[str, Reply]


def _read_bulk(
    conn: Connection, state: ClusterState, targets: Collection[str], now: dt.datetime
) -> _Bulk:
    sharded = sorted(ns for ns in targets if ns in state.collections)
    keys = {ns: dict(state.collections[ns].key) for ns in sharded if ".system.buckets." not in ns}
    return _Bulk(
        read_changes(conn, sharded, now - dt.timedelta(days=1)),
        read_chunk_infos(conn, state, sharded),
        # the live key's characteristics and, on 7.0+ where queries can be sampled, its
        # read/write distribution
        read_key_replies(conn, keys, distribution=_major(conn.version) >= 7),
    )


def _read_collection(
    conn: Connection,
    state: ClusterState,
    ns: str,
    distribution: Mapping[str, Mapping[str, tuple[int, int]]] | None,
    sizes: Mapping[str, int],
    bulk: _Bulk,
) -> CollectionInput:
    live = state.collections.get(ns)
    if live is None:
        return CollectionInput(ns, _unsharded_kind(conn, ns))
    chunks = bulk.chunks.get(ns)
    if chunks is None:  # 4.4's chunks name their collection, not its uuid: read on their own
        chunks = tuple(
            ChunkInfo(
                min=dict(d["min"]),
                max=dict(d["max"]),
                shard=str(d["shard"]),
                jumbo=bool(d.get("jumbo", False)),
                bytes=d.get("estimatedDataSizeBytes"),
            )
            for d in conn.client.config.chunks.find({"ns": ns}, _CHUNK_FIELDS).sort("min", 1)
        )
    changes = dict(bulk.changes.get(ns, {}))
    metrics: KeyMetrics | None
    note: str | None
    workload: Workload | None = None
    if ".system.buckets." in ns:
        # A sharded time-series collection's chunks: analyzeShardKey refuses system
        # collections ("Cannot run against a system collection").
        metrics, note = None, "a time-series buckets collection, which analyzeShardKey refuses"
    else:
        reply, note = bulk.replies[ns]
        metrics = None
        if reply is not None:
            metrics, note = key_metrics(reply, dict(live.key))
            workload = workload_of(reply)
    return CollectionInput(
        namespace=ns,
        kind="sharded",
        key=dict(live.key),
        chunks=chunks,
        metrics=metrics,
        metrics_note=note,
        distribution=(distribution or {}).get(ns) if distribution is not None else None,
        changes=changes,
        chunk_size=sizes.get(ns, default_chunk_bytes(conn.version)),
        workload=workload,
    )


def _major(version: str) -> int:
    head = version.split(".")[0]
    return int(head) if head.isdigit() else 7


def _unsharded_kind(conn: Connection, ns: str) -> Kind:
    db, _, name = ns.partition(".")
    found = list(conn.client[db].list_collections(filter={"name": name}))
    if not found:
        return "missing"
    kind = str(found[0].get("type", "collection"))
    return "view" if kind == "view" else "timeseries" if kind == "timeseries" else "unsharded"


def _read_distribution(conn: Connection) -> dict[str, dict[str, tuple[int, int]]] | None:
    """ns -> shard -> (owned documents, owned bytes); None before 6.0.3 or when refused."""
    try:
        stage: list[dict[str, Any]] = [{"$shardedDataDistribution": {}}]
        docs = list(conn.client.admin.aggregate(stage, batchSize=WHOLE))  # one reply
    except OperationFailure:
        return None
    return {
        str(d["ns"]): {
            str(s["shardName"]): (int(s["numOwnedDocuments"]), int(s["ownedSizeBytes"]))
            for s in d.get("shards", [])
        }
        for d in docs
    }


def _read_chunk_sizes(conn: Connection, state: ClusterState) -> dict[str, int]:
    """Each collection's max chunk size: maxChunkSizeBytes, else the chunksize setting."""
    config = conn.client.config
    setting = config.settings.find_one({"_id": "chunksize"})
    sizes: dict[str, int] = {}
    for d in config.collections.find({"maxChunkSizeBytes": {"$exists": True}}):
        sizes[str(d["_id"])] = int(d["maxChunkSizeBytes"])
    if setting and setting.get("value"):
        for ns in state.collections:
            sizes.setdefault(ns, int(setting["value"]) * 1024 * 1024)
    return sizes


def read_plan_checks(
    conn: Connection,
    actual: ClusterState,
    assigned: Mapping[str, Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]],
    batch: ChunkBatch | None = None,
) -> tuple[dict[str, list[ChunkInfo]], dict[str, int]]:
    """For plan's cluster rules: the jumbo chunks overlapping each assigned range (the
    range's chunks and the one straddling its min, by the {uuid, min} index) and the chunk
    total of each namespace (an indexed count: no document fetched); all in the batch's
    aggregates, not per namespace; a namespace read whole asked from its table."""
    batch = batch if batch is not None else ChunkBatch(conn)

    def read() -> tuple[dict[str, list[ChunkInfo]], dict[str, int]]:
        jumbo: dict[str, list[ChunkInfo]] = {}
        totals: dict[str, int] = {}
        for ns, ranges in sorted(assigned.items()):
            live = actual.collections.get(ns)
            if live is None:
                continue
            query: dict[str, Any] = {"uuid": live.uuid} if live.uuid is not None else {"ns": ns}
            table = batch.table(query) if _KEEP is not None else None
            totals[ns] = len(table) if table is not None else batch.count(query)
            found: dict[Any, ChunkInfo] = {}
            for lo, hi in ranges:
                if table is not None and _KEEP is not None:  # the same answers, asked directly
                    key = sort_key(lo)
                    docs = [
                        *table.docs(table.places_in(key, sort_key(hi), jumbo=True), _KEEP),
                        *straddling_in(table, lo, key, _KEEP, inclusive=False),
                    ]
                else:
                    inside = {**query, "min": {"$gte": lo, "$lt": hi}, "jumbo": True}
                    docs = [
                        *batch.find(inside, _CHUNK_FIELDS),
                        *straddling(batch, query, lo, _CHUNK_FIELDS, inclusive=False),
                    ]
                for d in docs:
                    if d.get("jumbo"):
                        info = ChunkInfo(dict(d["min"]), dict(d["max"]), str(d["shard"]), True)
                        found[sort_key(d["min"])] = info
            jumbo[ns] = [found[k] for k in sorted(found)]
        return jumbo, totals

    return batch.replay(read)
