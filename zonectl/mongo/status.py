"""Read everything `zonectl status` shows: shards, zones, ranges, balancer, per-namespace
compliance (one chunk pass over all collections), balancerCollectionStatus (concurrently),
and zonectl's lease/journal."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, ZonectlError, redact
from zonectl.model.cluster import ClusterState, LiveRange, ReshardProgress, is_mongodb_own
from zonectl.model.keys import sort_key
from zonectl.model.layout import ChunkLayout
from zonectl.mongo.chunk_scan import ChunkCompliance, Example
from zonectl.mongo.chunk_scan_many import read_many_compliance
from zonectl.mongo.chunk_sizes import per_chunk
from zonectl.mongo.collection_status import read_collection_statuses
from zonectl.mongo.connect import Connection
from zonectl.mongo.journal import MongoJournal
from zonectl.mongo.lease import MongoLease, describe_holder
from zonectl.mongo.reshard_read import read_progress, read_reshardings
from zonectl.mongo.state import WHOLE, read_config_documents
from zonectl.plan.settings_view import setting_lines
from zonectl.render.status import (
    BalancerState,
    ChunkRef,
    CollectionStatus,
    LeaseState,
    OpenJournal,
    RangeStatus,
    ShardStatus,
    StatusReport,
)

Doc = Mapping[str, Any]


def read_status(
    conn: Connection,
    *,
    database: str,
    now: dt.datetime,
    namespaces: Collection[str] | None = None,
    layout: bool = False,
) -> StatusReport:
    """The whole report. `namespaces` limits the per-namespace part (and the shard chunk
    totals) to those; unknown names are reported in `notes`. With `layout`, each sharded
    namespace also keeps where every chunk sits (a few bytes a chunk) for the pictures."""
    notes: list[str] = []
    state, colls, balancer_status = _read_config(conn, notes)
    by_ns = {str(d["_id"]): d for d in colls}
    names = sorted(set(by_ns) | {r.namespace for r in state.ranges})
    if namespaces is None:  # MongoDB's own (config.system.sessions) only when named or zoned
        names = [n for n in names if not is_mongodb_own(n) or state.ranges_of(n)]
    if namespaces is not None:
        for missing in sorted(set(namespaces) - set(names)):
            notes.append(f"{missing}: neither sharded nor given zone ranges")
        names = [n for n in names if n in set(namespaces)]
    shard_zones = {s.id: s.zones for s in state.shards}
    owned = _owned_bytes(conn, set(names), notes)
    sharded = [ns for ns in names if ns in by_ns]
    layouts = {ns: ChunkLayout() for ns in sharded} if layout else {}
    # Every collection's chunks in one cursor, and the per-collection balancer status sent
    # concurrently: round trips do not grow with the number of collections.
    scans = read_many_compliance(
        conn, [by_ns[ns] for ns in sharded], lambda ns: _live(state, ns), shard_zones, layouts
    )
    statuses = read_collection_statuses(conn, sharded)
    collections = tuple(
        _collection(
            state,
            ns,
            by_ns.get(ns),
            shard_zones,
            owned,
            scans.get(ns),
            statuses.get(ns),
            layouts.get(ns),
        )
        for ns in names
    )
    totals: dict[str, int] = {}
    for c in collections:
        for shard, n in c.per_shard.items():
            totals[shard] = totals.get(shard, 0) + n
    shard_bytes: dict[str, int] | None = None
    if owned is not None:
        shard_bytes = {}
        for per_shard in owned.values():
            for shard, n in per_shard.items():
                shard_bytes[shard] = shard_bytes.get(shard, 0) + n
    noted = len(notes)
    lease, journals = _zonectl_state(conn, database, now, notes)
    own_state_read = len(notes) == noted
    servers = {c.namespace: c.server for c in collections}
    state = dataclasses.replace(
        state,
        collections={
            ns: dataclasses.replace(live, balancer_status=servers.get(ns))
            for ns, live in state.collections.items()
        },
    )
    b = state.balancer
    return StatusReport(
        uri=conn.uri,
        version=conn.version,
        balancer=BalancerState(
            mode=b.mode if not b.stopped else "off",
            enabled=b.enabled,
            active_window=b.active_window,
            day_windows=b.day_windows,
            in_round=b.in_round,
            rounds=_int(balancer_status.get("numBalancerRounds")) if balancer_status else None,
        ),
        shards=tuple(
            ShardStatus(
                s.id,
                s.host,
                s.zones,
                s.draining,
                totals.get(s.id, 0),
                shard_bytes.get(s.id, 0) if shard_bytes is not None else None,
            )
            for s in state.shards
        ),
        collections=collections,
        lease=lease,
        journals=journals,
        notes=tuple(notes),
        own_state_read=own_state_read,
        reshardings=_reshardings(conn, notes),
        settings=setting_lines(state, None),
    )


def _reshardings(conn: Connection, notes: list[str]) -> tuple[ReshardProgress, ...]:
    """Reshardings in flight with their progress; a note when they cannot be read."""
    try:
        running = read_reshardings(conn)
        found = [read_progress(conn, r.namespace) for r in running]
    except ClusterError as exc:
        notes.append(f"reshardings in flight not read: {exc.message}")
        return ()
    return tuple(
        p or ReshardProgress(r.namespace, r.state, 0, 0, 0, None)
        for r, p in zip(running, found, strict=True)
    )


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


def _live(state: ClusterState, ns: str) -> list[LiveRange]:
    return sorted(state.ranges_of(ns), key=lambda r: (sort_key(r.min), sort_key(r.max)))


def _collection(
    state: ClusterState,
    ns: str,
    doc: Doc | None,
    shard_zones: Mapping[str, Sequence[str]],
    owned: Mapping[str, Mapping[str, int]] | None,
    scan: ChunkCompliance | None,
    server_status: tuple[Doc | None, str | None] | None,
    where: ChunkLayout | None,
) -> CollectionStatus:
    live = _live(state, ns)
    ranges = tuple(RangeStatus(r.zone, r.min, r.max) for r in live)
    carried = {z for zones in shard_zones.values() for z in zones}
    orphan_zones = tuple(sorted({r.zone for r in live} - carried))
    if doc is None or scan is None:
        return CollectionStatus(ns, False, None, None, ranges, zones_without_shard=orphan_zones)
    server, server_note = server_status or (None, None)
    return CollectionStatus(
        namespace=ns,
        sharded=True,
        key=dict(doc["key"]),
        balancing=not bool(doc.get("noBalance", False)),
        ranges=ranges,
        chunks=scan.chunks,
        per_shard=dict(scan.per_shard),
        outside_zone=scan.outside_zone,
        straddling=scan.straddling,
        jumbo=scan.jumbo,
        first_outside=_ref(scan.first_outside),
        first_straddling=_ref(scan.first_straddling),
        zones_without_shard=orphan_zones,
        server=server,
        server_note=server_note,
        outside_bytes=None if owned is None else _outside_bytes(scan, owned.get(ns, {})),
        owned_bytes=None if owned is None else dict(owned.get(ns, {})),
        layout=where,
    )


def _outside_bytes(scan: ChunkCompliance, owned: Mapping[str, int]) -> int:
    """Bytes of the out-of-zone chunks, each sized as the forecast sizes a chunk it did not
    measure (chunk_sizes.per_chunk: its shard's owned bytes over its chunk count):
    config.chunks carries no reliable per-chunk size (reference §2.3),
    $shardedDataDistribution does per shard."""
    total = 0
    for shard, outside in scan.outside_per_shard.items():
        total += per_chunk(owned.get(shard, 0), scan.per_shard.get(shard, 0)) * outside
    return total


def _ref(example: Example | None) -> ChunkRef | None:
    if example is None:
        return None
    return ChunkRef(example.min, example.max, example.shard, example.zone)


def _command(conn: Connection, command: Doc, notes: list[str]) -> dict[str, Any] | None:
    try:
        return dict(conn.client.admin.command(dict(command)))
    except OperationFailure as exc:
        notes.append(f"{next(iter(command))} failed: {redact(str(exc.details or exc))}")
        return None
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: {next(iter(command))} failed: {redact(str(exc))}"
        ) from None


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
            per_shard[shard] = per_shard.get(shard, 0) + (_int(entry.get("ownedSizeBytes")) or 0)
    return owned


def _zonectl_state(
    conn: Connection, database: str, now: dt.datetime, notes: list[str]
) -> tuple[LeaseState | None, tuple[OpenJournal, ...]]:
    """The apply lease and unfinished journals, read through the apply engine's own
    modules so the documents are interpreted one way only."""
    lease: LeaseState | None = None
    journals: tuple[OpenJournal, ...] = ()
    try:
        holder = MongoLease(conn.client, database).read()
        if holder is not None:
            expires = holder.get("expires")
            expires = _aware(expires) if isinstance(expires, dt.datetime) else None
            acquired = holder.get("acquired")
            lease = LeaseState(
                describe_holder(holder),
                expires,
                expires is not None and expires <= now,
                _aware(acquired) if isinstance(acquired, dt.datetime) else None,
            )
        journals = tuple(_journal(h) for h in MongoJournal(conn.client, database).find_open())
    except ZonectlError as exc:
        notes.append(f"zonectl database {database!r}: {exc.message}")
    return lease, journals


def _journal(header: Doc) -> OpenJournal:
    events = list(header.get("events") or ())
    paused: dict[tuple[str, str | None], bool] = {}
    for e in events:
        where = (str(e.get("scope")), e.get("ns"))
        if e.get("type") == "pause":
            paused[where] = True
        elif e.get("type") == "restored":
            paused.pop(where, None)
    unrestored = tuple(f"{scope} {ns}" if ns else scope for scope, ns in sorted(paused, key=str))
    started = header.get("started")
    return OpenJournal(
        apply_id=str(header.get("_id")),
        plan_id=str(header["plan_id"]) if header.get("plan_id") else None,
        owner=str(header["owner"]) if header.get("owner") else None,
        started=_aware(started) if isinstance(started, dt.datetime) else None,
        steps_done=sum(1 for e in events if e.get("type") == "step" and e.get("status") == "done"),
        ops=len(header.get("ops") or ()),
        unrestored=unrestored,
    )


def _aware(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
