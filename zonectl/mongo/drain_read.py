"""What each shard being removed (by the policy) or draining (config.shards) still holds
(ClusterState.drains): chunks and jumbo chunks per collection, owned bytes and orphans,
unsharded collections (8.0+), the databases whose primary it is, and on 8.3+ a draining
shard's `estimatedRemainingBytes`. Nothing is sent when no shard is removed or draining;
the round trips do not grow with the number of collections (reference shard-lifecycle.md).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.model.shard_lifecycle import DrainCollection, JumboChunk, ShardDrain
from zonectl.mongo.chunk_sizes import PLAN_MEASURED
from zonectl.mongo.cluster_catalog import read_cluster_catalog
from zonectl.mongo.connect import Connection
from zonectl.mongo.state import WHOLE

Doc = Mapping[str, Any]
SDD_SINCE = (6, 0, 3)  # $shardedDataDistribution, "New in version 6.0.3" (the manual)
MOVE_COLLECTION_SINCE = (8, 0)  # unsharded collections leave by moveCollection (8.0+)
DRAINING_STATUS_SINCE = (8, 3)  # shardDrainingStatus and its estimatedRemainingBytes
COMMAND_NOT_FOUND = 59
THREADS = 8


def drain_targets(desired: DesiredState, actual: ClusterState) -> list[str]:
    """The shards whose drain the plan needs: removed by the policy and present in the
    cluster, or marked draining in config.shards."""
    present = {s.id for s in actual.shards}
    draining = {s.id for s in actual.shards if s.draining}
    return sorted((desired.removed_shards & present) | draining)


def with_drain_facts(conn: Connection, desired: DesiredState, actual: ClusterState) -> ClusterState:
    """`actual` with `drains` filled for every drain target; unchanged (nothing read) when
    there is none."""
    actual = _with_removed_before(conn, desired, actual)
    targets = drain_targets(desired, actual)
    if not targets:
        return actual
    return dataclasses.replace(actual, drains=read_drains(conn, actual, targets))


def _with_removed_before(
    conn: Connection, desired: DesiredState, actual: ClusterState
) -> ClusterState:
    """For each shard the policy removes that the cluster lacks: when config.changelog
    records its removal (`what: "removeShard"`, written when removeShard completes or
    commitShardRemoval commits; sharding_catalog_manager_shard_operations.cpp), in one
    find; nothing is read when there is none."""
    live = {s.id for s in actual.shards}
    absent = sorted(desired.removed_shards - live)
    if not absent:
        return actual
    found: dict[str, Any] = dict.fromkeys(absent)
    try:
        docs = conn.client["config"]["changelog"].find(
            {"what": "removeShard", "details.shard": {"$in": absent}},
            {"time": 1, "details.shard": 1},
        )
        for doc in docs:
            shard = str((doc.get("details") or {}).get("shard", ""))
            if shard in found:
                found[shard] = max(filter(None, (found[shard], doc.get("time"))), default=None)
    except PyMongoError:
        pass  # unreadable (privileges): each is then only "not in the cluster"
    return dataclasses.replace(actual, removed_before=found)


@dataclass
class _Held:
    """One shard's share, filled by the reads below."""

    chunks: dict[str, int] = field(default_factory=dict)  # ns -> chunks
    jumbo: dict[str, list[JumboChunk]] = field(default_factory=dict)
    owned: dict[str, int] = field(default_factory=dict)  # ns -> ownedSizeBytes
    unsharded: set[str] = field(default_factory=set)
    databases: list[str] = field(default_factory=list)
    orphan_docs: int = 0
    orphan_bytes: int = 0
    estimated: int | None = None


def read_drains(
    conn: Connection, actual: ClusterState, targets: Sequence[str]
) -> dict[str, ShardDrain]:
    """ShardDrain per target shard (see the module doc)."""
    held = {shard: _Held() for shard in targets}
    try:
        keys = _read_chunks(conn, held)
        distribution = _read_distribution(conn, held)
        _read_databases(conn, held)
        if _features(actual) >= MOVE_COLLECTION_SINCE:
            _read_unsharded(conn, held)
        if _features(actual) >= DRAINING_STATUS_SINCE:
            draining = {s.id for s in actual.shards if s.draining}
            _read_draining_status(conn, held, [s for s in targets if s in draining])
        _measure_jumbo(conn, held, keys)
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading what shards {', '.join(targets)} hold failed: {redact(str(exc))}"
        ) from None
    out = {}
    for shard in targets:
        h = held[shard]
        namespaces = sorted(h.chunks)
        out[shard] = ShardDrain(
            shard=shard,
            draining=any(s.id == shard and s.draining for s in actual.shards),
            collections=tuple(
                DrainCollection(
                    ns,
                    h.chunks[ns],
                    h.owned.get(ns, 0) if distribution else None,
                    tuple(h.jumbo.get(ns, ())),
                )
                for ns in namespaces
            ),
            unsharded=tuple(sorted(h.unsharded)),
            databases=tuple(sorted(h.databases)),
            orphan_docs=h.orphan_docs,
            orphan_bytes=h.orphan_bytes,
            estimated_remaining_bytes=h.estimated,
        )
    return out


@dataclass(frozen=True)
class _Coll:
    """A config.collections entry found through its chunks."""

    ns: str
    key: Mapping[str, Any]
    unsplittable: bool


def _read_chunks(conn: Connection, held: dict[str, _Held]) -> dict[str, _Coll]:
    """One aggregation over config.chunks (chunks per collection and shard, and the bounds
    of the jumbo ones), then the collections' entries by uuid (ns before 5.0) in one find.
    Tracked unsharded collections (8.0 `unsplittable`) are unsharded, not chunks."""
    by = "$uuid" if _major(conn.version) >= 5 else "$ns"
    jumbo = {"$cond": [{"$eq": ["$jumbo", True]}, {"min": "$min", "max": "$max"}, "$$REMOVE"]}
    pipeline: list[dict[str, Any]] = [
        {"$match": {"shard": {"$in": sorted(held)}}},
        {
            "$group": {
                "_id": {"c": by, "s": "$shard"},
                "chunks": {"$sum": 1},
                "jumbo": {"$push": jumbo},
            }
        },
    ]
    groups = list(conn.client.config.chunks.aggregate(pipeline, batchSize=WHOLE))
    ids = [g["_id"]["c"] for g in groups]
    field_name = "uuid" if by == "$uuid" else "_id"
    colls: dict[Any, _Coll] = {}
    if ids:
        wanted = {field_name: {"$in": ids}}
        projection = {"_id": 1, "uuid": 1, "key": 1, "unsplittable": 1, "dropped": 1}
        for d in conn.client.config.collections.find(wanted, projection, batch_size=WHOLE):
            if not d.get("dropped"):
                colls[_ident(d.get(field_name))] = _Coll(
                    str(d["_id"]), dict(d.get("key") or {}), bool(d.get("unsplittable"))
                )
    keys: dict[str, _Coll] = {}
    for g in groups:
        coll = colls.get(_ident(g["_id"]["c"]))
        shard = str(g["_id"]["s"])
        if coll is None or shard not in held:
            continue  # a collection dropped while we read
        keys[coll.ns] = coll
        if coll.unsplittable:
            held[shard].unsharded.add(coll.ns)
            continue
        held[shard].chunks[coll.ns] = int(g["chunks"])
        held[shard].jumbo[coll.ns] = [
            JumboChunk(coll.ns, dict(j["min"]), dict(j["max"])) for j in g.get("jumbo") or ()
        ]
    return keys


def _ident(value: Any) -> Any:
    """A hashable form of a uuid (bson Binary or uuid.UUID) or a namespace."""
    return bytes(value.bytes) if hasattr(value, "bytes") else value


def _read_distribution(conn: Connection, held: dict[str, _Held]) -> bool:
    """Owned bytes and orphans per collection and shard ($shardedDataDistribution, 6.0.3+);
    False when the server lacks the stage (sizes then stay unknown)."""
    if _version(conn.version) < SDD_SINCE:
        return False
    try:
        docs = conn.client.admin.aggregate([{"$shardedDataDistribution": {}}], batchSize=WHOLE)
        for doc in docs:
            for s in doc.get("shards") or ():
                h = held.get(str(s.get("shardName")))
                if h is None:
                    continue
                h.owned[str(doc["ns"])] = int(s.get("ownedSizeBytes") or 0)
                h.orphan_docs += int(s.get("numOrphanedDocs") or 0)
                h.orphan_bytes += int(s.get("orphanedSizeBytes") or 0)
    except OperationFailure:
        return False  # not permitted (clusterMonitor lacks nothing here, a custom role may)
    return True


def _read_databases(conn: Connection, held: dict[str, _Held]) -> None:
    """The databases whose primary each shard is (config.databases, one find)."""
    wanted = {"primary": {"$in": sorted(held)}}
    for d in conn.client.config.databases.find(wanted, {"primary": 1}, batch_size=WHOLE):
        held[str(d["primary"])].databases.append(str(d["_id"]))


def _read_unsharded(conn: Connection, held: dict[str, _Held]) -> None:
    """8.0+: the untracked unsharded collections of the databases whose primary a shard is
    ($listClusterCatalog in one aggregation where the server has it, else listCollections
    per such database). Views hold no data, and removeShard's `collectionsToMove` leaves out
    system collections and time-series buckets (SERVER-101043): so does this."""
    primaries = {db: shard for shard, h in held.items() for db in h.databases}
    databases = sorted(primaries)
    if not databases:
        return
    # Sharded and tracked collections of those databases (listCollections lists them too):
    # their chunks were counted above, wherever they live.
    pattern = "^(" + "|".join(re.escape(db) for db in databases) + ")\\."
    known = {
        str(d["_id"])
        for d in conn.client.config.collections.find(
            {"_id": {"$regex": pattern}}, {"_id": 1, "dropped": 1}, batch_size=WHOLE
        )
        if not d.get("dropped")
    }
    listed = read_cluster_catalog(conn, databases)
    if listed is None:
        # One batch per database (cursor.batchSize): the reads do not grow with its collections.
        whole = {"batchSize": WHOLE}
        listed = [
            (db, [dict(e) for e in conn.client[db].list_collections(cursor=whole)])
            for db in databases
        ]
    for db, entries in listed:
        for entry in entries:
            name, kind = str(entry.get("name", "")), str(entry.get("type", "collection"))
            ns = f"{db}.{name}"
            if name.startswith("system.") or kind in ("view", "timeseries") or ns in known:
                continue
            owners = entry.get("shards")
            shard = str(owners[0]) if isinstance(owners, list) and owners else primaries[db]
            if shard in held:
                held[shard].unsharded.add(ns)


def _read_draining_status(conn: Connection, held: dict[str, _Held], draining: list[str]) -> None:
    """8.3+: shardDrainingStatus of each draining shard, for `estimatedRemainingBytes`; a
    server without the command (CommandNotFound) leaves it unknown."""
    for shard in draining:
        try:
            reply = conn.client.admin.command({"shardDrainingStatus": shard})
        except OperationFailure as exc:
            if exc.code == COMMAND_NOT_FOUND:
                return
            raise
        remaining = reply.get("remaining") or {}
        value = remaining.get("estimatedRemainingBytes")
        if isinstance(value, int | float) and not isinstance(value, bool):
            held[shard].estimated = int(value)


def _measure_jumbo(conn: Connection, held: dict[str, _Held], keys: Mapping[str, _Coll]) -> None:
    """dataSize (estimate: true) of the first PLAN_MEASURED jumbo chunks, from a few
    threads; the rest, or a refused command, stay unsized."""
    jumbo = [
        (shard, ns, i)
        for shard, h in held.items()
        for ns in h.jumbo
        for i in range(len(h.jumbo[ns]))
    ]
    wanted = jumbo[:PLAN_MEASURED]
    if not wanted:
        return

    def size(item: tuple[str, str, int]) -> int | None:
        shard, ns, i = item
        chunk = held[shard].jumbo[ns][i]
        command = {
            "dataSize": ns,
            "keyPattern": dict(keys[ns].key),
            "min": dict(chunk.min),
            "max": dict(chunk.max),
            "estimate": True,
        }
        try:
            return int(conn.client.admin.command(command).get("size") or 0)
        except OperationFailure:
            return None

    with ThreadPoolExecutor(min(THREADS, len(wanted))) as pool:
        sizes = list(pool.map(size, wanted))
    for (shard, ns, i), n in zip(wanted, sizes, strict=True):
        if n is not None:
            held[shard].jumbo[ns][i] = dataclasses.replace(held[shard].jumbo[ns][i], bytes=n)


def _features(actual: ClusterState) -> tuple[int, int]:
    return actual.features


def _version(version: str) -> tuple[int, ...]:
    parts = [int(p) if p.isdigit() else 0 for p in version.split(".")[:3]]
    return tuple([*parts, 0, 0, 0][:3])


def _major(version: str) -> int:
    return _version(version)[0] or 7
