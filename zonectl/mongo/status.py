"""Read everything `zonectl status` shows, as data: config documents, compliance (one chunk
pass over all collections), balancerCollectionStatus (concurrently), owned bytes, zonectl's
lease and journals, reshardings. The report is built above (zonectl/session/status_report.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, ZonectlError, redact
from zonectl.model.cluster import ClusterState, LiveRange, ReshardProgress, is_mongodb_own
from zonectl.model.keys import sort_key
from zonectl.model.layout import ChunkLayout
from zonectl.mongo.chunk_scan import ChunkCompliance
from zonectl.mongo.chunk_scan_many import read_many_compliance
from zonectl.mongo.collection_status import read_collection_statuses
from zonectl.mongo.connect import Connection
from zonectl.mongo.drain_read import read_drains
from zonectl.mongo.journal import MongoJournal
from zonectl.mongo.lease import MongoLease
from zonectl.mongo.reshard_read import read_progress, read_reshardings
from zonectl.mongo.state import WHOLE, read_config_documents

Doc = Mapping[str, Any]


@dataclass(frozen=True)
class StatusRead:
    """What status read, as read. `names`: the namespaces reported, in order; the maps are
    keyed by namespace and hold the sharded ones."""

    uri: str
    version: str
    state: ClusterState
    balancer_status: Doc | None  # the balancerStatus reply
    names: tuple[str, ...]
    entries: Mapping[str, Doc]  # config.collections entries
    scans: Mapping[str, ChunkCompliance]
    servers: Mapping[str, tuple[Doc | None, str | None]]  # balancerCollectionStatus, or why not
    owned: Mapping[str, Mapping[str, int]] | None  # ns -> shard -> bytes; None: not reported
    layouts: Mapping[str, ChunkLayout]  # with `layout` only
    lease: Doc | None  # the apply lease's document; None: free
    journals: tuple[Doc, ...]  # headers of the journals not closed
    own_state_read: bool  # False: zonectl's lease and journals could not be read
    reshardings: tuple[ReshardProgress, ...]
    notes: tuple[str, ...]  # what could not be read, and why
    reshardings_note: str | None = None  # why reshardings could not be read


def read_status(
    conn: Connection,
    *,
    database: str,
    namespaces: Collection[str] | None = None,
    layout: bool = False,
) -> StatusRead:
    """Everything status shows. `namespaces` limits the per-namespace part to those; unknown
    names are noted. With `layout`, each sharded namespace also keeps where every chunk sits
    (a few bytes a chunk) for the pictures."""
    notes: list[str] = []
    state, colls, balancer_status = _read_config(conn, notes)
    # What each draining shard still holds: a fixed number of reads, none when none drains.
    draining = [s.id for s in state.shards if s.draining]
    if draining:
        state = dataclasses.replace(state, drains=read_drains(conn, state, draining))
    entries = {str(d["_id"]): d for d in colls}
    names = _reported(state, entries, namespaces, notes)
    shard_zones = {s.id: s.zones for s in state.shards}
    owned = _owned_bytes(conn, set(names), notes)
    sharded = [ns for ns in names if ns in entries]
    layouts = {ns: ChunkLayout() for ns in sharded} if layout else {}
    # Every collection's chunks in one cursor, and the per-collection balancer status sent
    # concurrently: round trips do not grow with the number of collections.
    scans = read_many_compliance(
        conn,
        [entries[ns] for ns in sharded],
        lambda ns: sorted_ranges(state, ns),
        shard_zones,
        layouts,
    )
    servers = read_collection_statuses(conn, sharded)
    noted = len(notes)
    lease, journals = _zonectl_state(conn, database, notes)
    reshardings, reshardings_note = _reshardings(conn)
    return StatusRead(
        uri=conn.uri,
        version=conn.version,
        state=state,
        balancer_status=balancer_status,
        names=tuple(names),
        entries=entries,
        scans=scans,
        servers=servers,
        owned=owned,
        layouts=layouts,
        lease=lease,
        journals=journals,
        own_state_read=len(notes) == noted,
        reshardings=reshardings,
        notes=tuple(notes),
        reshardings_note=reshardings_note,
    )


def _reported(
    state: ClusterState,
    entries: Mapping[str, Doc],
    namespaces: Collection[str] | None,
    notes: list[str],
) -> list[str]:
    """The namespaces status reports on: sharded or zoned; MongoDB's own
    (config.system.sessions) only when named or zoned; of `namespaces` only when given."""
    names = sorted(set(entries) | {r.namespace for r in state.ranges})
    if namespaces is None:
        return [n for n in names if not is_mongodb_own(n) or state.ranges_of(n)]
    for missing in sorted(set(namespaces) - set(names)):
        notes.append(f"{missing}: neither sharded nor given zone ranges")
    return [n for n in names if n in set(namespaces)]


def _reshardings(conn: Connection) -> tuple[tuple[ReshardProgress, ...], str | None]:
    """Reshardings in flight with their progress; why not, when they cannot be read."""
    try:
        running = read_reshardings(conn)
        found = [read_progress(conn, r.namespace) for r in running]
    except ClusterError as exc:
        return (), f"reshardings in flight not read: {exc.message}"
    progress = tuple(
        p or ReshardProgress(r.namespace, r.state, 0, 0, 0, None)
        for r, p in zip(running, found, strict=True)
    )
    return progress, None


def read_full_state(conn: Connection) -> ClusterState:
    """Every shard, range and sharded collection and the balancer: what `export` needs."""
    return _read_config(conn, [])[0]


def _read_config(
    conn: Connection, notes: list[str]
) -> tuple[ClusterState, list[dict[str, Any]], dict[str, Any] | None]:
    docs = read_config_documents(conn)
    if docs.status_error is not None:
        notes.append(f"balancerStatus failed: {docs.status_error}")
    return docs.cluster_state(conn), docs.collections, docs.status


def sorted_ranges(state: ClusterState, ns: str) -> list[LiveRange]:
    """The namespace's zone ranges in key order."""
    return sorted(state.ranges_of(ns), key=lambda r: (sort_key(r.min), sort_key(r.max)))


def _owned_bytes(
    conn: Connection, names: set[str], notes: list[str]
) -> dict[str, dict[str, int]] | None:
    """Bytes each shard owns of each scanned namespace (ns -> shard -> bytes), from
    `$shardedDataDistribution` (6.0.3+); config.chunks carries no sizes a tool can rely
    on (reference §2.3)."""
    try:
        stage: list[dict[str, Any]] = [{"$shardedDataDistribution": {}}]
        docs = list(conn.client.admin.aggregate(stage, batchSize=WHOLE))
    except OperationFailure:
        notes.append("shard bytes: the server has no $shardedDataDistribution (6.0.3+)")
        return None
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: $shardedDataDistribution failed: {redact(str(exc))}"
        ) from None
    owned: dict[str, dict[str, int]] = {}
    for doc in docs:
        ns = doc.get("ns")
        if ns not in names:
            continue
        per_shard = owned.setdefault(str(ns), {})
        for entry in doc.get("shards") or ():
            shard = str(entry.get("shardName"))
            per_shard[shard] = per_shard.get(shard, 0) + (
                int_or_none(entry.get("ownedSizeBytes")) or 0
            )
    return owned


def _zonectl_state(
    conn: Connection, database: str, notes: list[str]
) -> tuple[Doc | None, tuple[Doc, ...]]:
    """The apply lease and the unfinished journals' headers, read through the apply engine's
    own modules so the documents are found one way only."""
    holder: Doc | None = None
    try:
        holder = MongoLease(conn.client, database).read()
        return holder, tuple(MongoJournal(conn.client, database).find_open())
    except ZonectlError as exc:
        notes.append(f"zonectl database {database!r}: {exc.message}")
        return holder, ()


def int_or_none(value: Any) -> int | None:
    """A number of a server reply as an int; None for anything else (bool included)."""
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
