"""Read everything `zonectl status` shows, as data: config documents, compliance (one chunk
pass over all collections), owned bytes, zonectl's lease and journals, reshardings, and
explain's facts (zonectl/mongo/explain_facts.py) built from those same reads plus
config.changelog, so what balancerCollectionStatus would say is derived, not asked per
collection. The report is built above (zonectl/session/status_report.py)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zonectl.errors import ClusterError, ZonectlError
from zonectl.explain.facts import CollectionFacts
from zonectl.model.cluster import ClusterState, LiveRange, ReshardProgress, is_mongodb_own
from zonectl.model.keys import sort_key
from zonectl.model.layout import ChunkLayout
from zonectl.mongo.chunk_scan import ChunkCompliance
from zonectl.mongo.chunk_scan_many import read_many_compliance
from zonectl.mongo.collection_status import read_collection_statuses
from zonectl.mongo.connect import Connection
from zonectl.mongo.drain_read import read_drains
from zonectl.mongo.explain_facts import (
    FactSources,
    Held,
    chunk_mb,
    collection_facts,
    read_distribution,
    read_held,
    tallies_of,
)
from zonectl.mongo.explain_read import by_data_size
from zonectl.mongo.journal import MongoJournal
from zonectl.mongo.lease import MongoLease
from zonectl.mongo.migration_failures import read_failures
from zonectl.mongo.reshard_read import read_progress, reshardings_of
from zonectl.mongo.state import ConfigDocuments, read_config_documents

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
    # balancerCollectionStatus asked of the collections being defragmented only (its
    # `details` are the phase's progress, which no config document holds), or why not
    servers: Mapping[str, tuple[Doc | None, str | None]]
    owned: Mapping[str, Mapping[str, int]] | None  # ns -> shard -> bytes; None: not reported
    layouts: Mapping[str, ChunkLayout]  # with `layout` only
    lease: Doc | None  # the apply lease's document; None: free
    journals: tuple[Doc, ...]  # headers of the journals not closed
    own_state_read: bool  # False: zonectl's lease and journals could not be read
    reshardings: tuple[ReshardProgress, ...]
    notes: tuple[str, ...]  # what could not be read, and why
    reshardings_note: str | None = None  # why reshardings could not be read
    # explain's facts of each sharded namespace reported, from the reads above
    facts: Mapping[str, CollectionFacts] = dataclasses.field(default_factory=dict)
    # each namespace's zone ranges in key order (sorted_ranges), where it has some
    ranges: Mapping[str, Sequence[LiveRange]] = dataclasses.field(default_factory=dict)


def read_status(
    conn: Connection,
    *,
    database: str,
    now: dt.datetime,
    namespaces: Collection[str] | None = None,
    layout: bool = False,
) -> StatusRead:
    """Everything status shows. `namespaces` limits the per-namespace part to those; unknown
    names are noted. With `layout`, each sharded namespace also keeps where every chunk sits
    (a few bytes a chunk) for the pictures. `now`: the cluster's, from which the last day
    of config.changelog is read for failing migrations."""
    notes: list[str] = []
    docs = _read_config(conn, notes)
    state, colls, balancer_status = docs.cluster_state(conn), docs.collections, docs.status
    # What each draining shard still holds: a fixed number of reads, none when none drains.
    draining = [s.id for s in state.shards if s.draining]
    if draining:
        state = dataclasses.replace(state, drains=read_drains(conn, state, draining))
    entries = {str(d["_id"]): d for d in colls}
    names = _reported(state, entries, namespaces, notes)
    shard_zones = {s.id: s.zones for s in state.shards}
    distribution = read_distribution(conn)
    owned = _owned_bytes(distribution.sizes, set(names), notes)
    sharded = [ns for ns in names if ns in entries]
    layouts = {ns: ChunkLayout() for ns in sharded} if layout else {}
    # Every collection's chunks in one cursor: round trips do not grow with the number of
    # collections. balancerCollectionStatus (no bulk form) only where a defragmentation runs.
    ranges = ranges_by_namespace(state, names)
    scans = read_many_compliance(
        conn, [entries[ns] for ns in sharded], lambda ns: ranges[ns], shard_zones, layouts
    )
    defragmenting = [ns for ns in sharded if entries[ns].get("defragmentCollection")]
    servers = read_collection_statuses(conn, defragmenting)
    noted = len(notes)
    lease, journals = _zonectl_state(conn, database, notes)
    held = read_held(conn)
    reshardings, reshardings_note = _reshardings(conn, held)
    failures, history_note = read_failures(conn, now)
    tallies, straddling = tallies_of(scans)
    sources = FactSources(
        ranges=ranges,
        tallies=tallies,
        straddling=straddling,
        distribution=distribution,
        failures=failures,
        history_note=history_note,
        held=held,
        default_mb=chunk_mb(docs.settings, conn.version),
        by_data_size=by_data_size(conn.version, conn.fcv),
    )
    facts = collection_facts([entries[ns] for ns in sharded], sources)
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
        facts={f.ns: f for f in facts},
        ranges={ns: found for ns, found in ranges.items() if found},
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


def _reshardings(conn: Connection, held: Held) -> tuple[tuple[ReshardProgress, ...], str | None]:
    """Reshardings in flight with their progress; why not, when they cannot be read."""
    if held.note:
        return (), f"reshardings in flight not read: {held.note}"
    running = reshardings_of(held.docs)
    try:
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
    return _read_config(conn, []).cluster_state(conn)


def _read_config(conn: Connection, notes: list[str]) -> ConfigDocuments:
    docs = read_config_documents(conn)
    if docs.status_error is not None:
        notes.append(f"balancerStatus failed: {docs.status_error}")
    return docs


def sorted_ranges(state: ClusterState, ns: str) -> list[LiveRange]:
    """The namespace's zone ranges in key order."""
    return _in_key_order(state.ranges_of(ns))


def ranges_by_namespace(state: ClusterState, names: Iterable[str]) -> dict[str, list[LiveRange]]:
    """`sorted_ranges` of each of `names`, from one pass over the cluster's ranges (not one
    per namespace: 10,000 namespaces with ranges would be 10,000 passes over all of them)."""
    found: dict[str, list[LiveRange]] = {ns: [] for ns in names}
    for r in state.ranges:
        if r.namespace in found:
            found[r.namespace].append(r)
    return {ns: _in_key_order(rs) if len(rs) > 1 else rs for ns, rs in found.items()}


def _in_key_order(ranges: Iterable[LiveRange]) -> list[LiveRange]:
    return sorted(ranges, key=lambda r: (sort_key(r.min), sort_key(r.max)))


def _owned_bytes(
    sizes: Mapping[str, Mapping[str, int]] | None, names: set[str], notes: list[str]
) -> dict[str, dict[str, int]] | None:
    """Bytes each shard owns of each scanned namespace (ns -> shard -> bytes), from
    `$shardedDataDistribution` (6.0.3+); config.chunks carries no sizes a tool can rely
    on (reference §2.3)."""
    if sizes is None:
        notes.append("shard bytes: the server has no $shardedDataDistribution (6.0.3+)")
        return None
    return {ns: dict(per_shard) for ns, per_shard in sizes.items() if ns in names}


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
