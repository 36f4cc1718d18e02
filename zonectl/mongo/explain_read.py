"""What `zonectl explain` reads, in a fixed number of commands whatever the number of
collections: the config documents (shards, zones, collections, settings, balancerStatus),
config.chunks counted per collection, shard and zone with their jumbo flags (one aggregate
for collections without zone ranges, one sorted cursor for the zoned ones), owned bytes and
orphans ($shardedDataDistribution), the recent moveChunk outcomes (one config.changelog
query) and the DDL in flight (config.reshardingOperations). A read refused for a privilege
becomes an unknown fact naming it, never an exception."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.explain.facts import NO_ZONE, CollectionFacts, Failures, Tally
from zonectl.model.cluster import LiveRange, feature_release
from zonectl.model.keys import sort_key
from zonectl.mongo.chunk_scan_many import read_many_compliance
from zonectl.mongo.chunk_sizes import DEFAULT_CHUNK_MB
from zonectl.mongo.connect import Connection
from zonectl.mongo.migration_failures import read_failures
from zonectl.mongo.state import WHOLE, ConfigDocuments, read_config_documents

Doc = Mapping[str, Any]
UNAUTHORIZED = 13
SDD_SINCE = (6, 0, 3)  # $shardedDataDistribution, and balancing by data size
SDD_PRIVILEGE = (
    "$shardedDataDistribution was refused: needs the shardedDataDistribution action "
    "(clusterMonitor grants it)"
)
CHANGELOG_PRIVILEGE = (
    "config.changelog was refused: needs find on config.changelog (clusterMonitor)"
)


@dataclass(frozen=True)
class ExplainRead:
    docs: ConfigDocuments
    collections: tuple[CollectionFacts, ...]
    notes: tuple[str, ...] = field(default=())


def version_tuple(version: str) -> tuple[int, ...]:
    parts = []
    for p in version.split(".")[:3]:
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def by_data_size(version: str, fcv: str | None) -> bool:
    """6.0.3+ balances by data size (balancer-settings §6.1), at FCV 6.0+."""
    features = feature_release(version, fcv) or (7, 0)
    return version_tuple(version) >= SDD_SINCE and features >= (6, 0)


def read_explain(conn: Connection, now: dt.datetime) -> ExplainRead:
    """Every sharded collection's facts (config.collections order by name)."""
    docs = read_config_documents(conn)
    entries = sorted(docs.collections, key=lambda d: str(d["_id"]))
    ranges: dict[str, list[LiveRange]] = {}
    for t in docs.tags:
        ranges.setdefault(str(t["ns"]), []).append(
            LiveRange(str(t["ns"]), str(t["tag"]), dict(t["min"]), dict(t["max"]))
        )
    for rs in ranges.values():
        rs.sort(key=lambda r: sort_key(r.min))
    tallies, straddling = _read_chunks(conn, entries, ranges, docs.shards)
    sizes, orphans, sizes_note = _read_distribution(conn)
    failures, history_note = read_failures(conn, now)
    ddl, ddl_note = _read_ddl(conn)
    default_mb = _chunk_mb(docs, conn.version)
    data_size = by_data_size(conn.version, conn.fcv)
    out = []
    for doc in entries:
        ns = str(doc["_id"])
        unknown: dict[str, str] = {}
        if sizes_note and data_size:
            unknown["below-threshold"] = "the data-size rule could not be checked: " + sizes_note
        if sizes_note:
            unknown["range-deletions-pending"] = "orphans could not be read: " + sizes_note
        if history_note:
            unknown["migration-failing"] = "migration failures could not be read: " + history_note
        if ddl_note:
            unknown["ddl-in-progress"] = "DDL in flight could not be read: " + ddl_note
        tally = tallies.get(ns, {})
        held = ddl.get(ns, "")
        if not held and not tally:
            held = "a drop or creation (the collection has no chunks)"
        out.append(
            CollectionFacts(
                ns=ns,
                tally=tally,
                range_zones=frozenset(r.zone for r in ranges.get(ns, ())),
                straddling=straddling.get(ns, 0),
                sizes=None if sizes is None else sizes.get(ns, {}),
                max_chunk_bytes=int(doc.get("maxChunkSizeBytes") or default_mb * 1024 * 1024),
                no_balance=bool(doc.get("noBalance", False)),
                allow_migrations=doc.get("allowMigrations", True) is not False
                and doc.get("permitMigrations", True) is not False,
                migrations_field=(
                    "allowMigrations" if doc.get("allowMigrations", True) is False else ""
                ),
                defragmenting=bool(doc.get("defragmentCollection", False)),
                defrag_phase=str(doc.get("defragmentationPhase") or ""),
                ddl=held,
                failures=None if history_note else failures.get(ns, Failures(0)),
                orphans=(orphans or {}).get(ns, {}),
                unknown=unknown,
            )
        )
    notes = tuple(n for n in (sizes_note, history_note, ddl_note) if n)
    return ExplainRead(docs, tuple(out), notes)


def _chunk_mb(docs: ConfigDocuments, version: str) -> int:
    setting = (docs.settings or {}).get("chunksize") or {}
    value = setting.get("value")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return int(value)
    return DEFAULT_CHUNK_MB.get(version_tuple(version)[0], 128)


def _read_chunks(
    conn: Connection,
    entries: Sequence[Doc],
    ranges: Mapping[str, Sequence[LiveRange]],
    shards: Sequence[Doc],
) -> tuple[dict[str, dict[tuple[str, str], Tally]], dict[str, int]]:
    """(shard, zone) tallies per collection, and its chunks a zone boundary cuts. Zoned
    collections' chunks stream in one cursor and are placed in zones by zonectl's compliance
    walk (zonectl/mongo/chunk_scan.py); the others are counted by one aggregate."""
    zoned = [d for d in entries if ranges.get(str(d["_id"]))]
    plain = [d for d in entries if not ranges.get(str(d["_id"]))]
    tallies: dict[str, dict[tuple[str, str], Tally]] = {}
    straddling: dict[str, int] = {}
    shard_zones = {str(s["_id"]): tuple(s.get("tags") or ()) for s in shards}
    scans = read_many_compliance(conn, zoned, lambda ns: ranges.get(ns, ()), shard_zones)
    for ns, scan in scans.items():
        tallies[ns] = {
            (shard, zone or NO_ZONE): Tally(n, j) for (shard, zone), (n, j) in scan.tally.items()
        }
        straddling[ns] = scan.straddling
    tallies.update(_count_plain(conn, plain))
    return tallies, straddling


def _count_plain(
    conn: Connection, entries: Sequence[Doc]
) -> dict[str, dict[tuple[str, str], Tally]]:
    """Chunks and jumbo chunks per collection and shard, in one aggregate over the whole of
    config.chunks (grouped by uuid from 5.0, by ns in 4.4): one pass on the server, a few
    documents per collection back, and no `$in` list that grows with the collections."""
    if not entries:
        return {}
    uuid_form = version_tuple(conn.version)[0] >= 5 and all("uuid" in d for d in entries)
    by = "$uuid" if uuid_form else "$ns"
    name = {_ident(d["uuid"] if uuid_form else d["_id"]): str(d["_id"]) for d in entries}
    pipeline: list[dict[str, Any]] = [
        {
            "$group": {
                "_id": {"c": by, "s": "$shard"},
                "n": {"$sum": 1},
                "j": {"$sum": {"$cond": [{"$eq": ["$jumbo", True]}, 1, 0]}},
            }
        },
    ]
    try:
        groups = list(conn.client.config.chunks.aggregate(pipeline, batchSize=WHOLE))
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: counting chunks failed: {redact(str(exc))}") from None
    out: dict[str, dict[tuple[str, str], Tally]] = {}
    for g in groups:
        ns = name.get(_ident(g["_id"].get("c")))
        if ns is not None:
            out.setdefault(ns, {})[(str(g["_id"]["s"]), NO_ZONE)] = Tally(int(g["n"]), int(g["j"]))
    return out


def _ident(value: Any) -> Any:
    """A hashable form of a uuid (bson Binary or uuid.UUID) or a namespace."""
    return bytes(value.bytes) if hasattr(value, "bytes") else value


def _read_distribution(
    conn: Connection,
) -> tuple[dict[str, dict[str, int]] | None, dict[str, dict[str, int]] | None, str]:
    """Owned bytes and orphaned documents per collection and shard (6.0.3+); (None, None,
    why) when refused; (None, None, "") before 6.0.3, which balances by chunk counts."""
    if version_tuple(conn.version) < SDD_SINCE:
        return None, None, ""
    try:
        docs = list(
            conn.client.admin.aggregate([{"$shardedDataDistribution": {}}], batchSize=WHOLE)
        )
    except OperationFailure as exc:
        if exc.code == UNAUTHORIZED:
            return None, None, SDD_PRIVILEGE
        return None, None, f"$shardedDataDistribution failed: {redact(str(exc))}"
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: $shardedDataDistribution failed: {redact(str(exc))}"
        ) from None
    sizes: dict[str, dict[str, int]] = {}
    orphans: dict[str, dict[str, int]] = {}
    for doc in docs:
        ns = str(doc.get("ns"))
        for s in doc.get("shards") or ():
            shard = str(s.get("shardName"))
            sizes.setdefault(ns, {})[shard] = _int(s.get("ownedSizeBytes"))
            orphans.setdefault(ns, {})[shard] = _int(s.get("numOrphanedDocs"))
    return sizes, orphans, ""


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _read_ddl(conn: Connection) -> tuple[dict[str, str], str]:
    """Collections a resharding, moveCollection or unshardCollection holds
    (config.reshardingOperations; they set allowMigrations: false meanwhile)."""
    try:
        docs = list(conn.client.config.reshardingOperations.find({}, batch_size=WHOLE))
    except OperationFailure as exc:
        if exc.code == UNAUTHORIZED:
            return {}, "config.reshardingOperations was refused: needs find on it (clusterMonitor)"
        return {}, f"reading config.reshardingOperations failed: {redact(str(exc))}"
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading config.reshardingOperations failed: {redact(str(exc))}"
        ) from None
    out = {}
    for d in docs:
        what = str(d.get("provenance") or "reshardCollection")
        state = d.get("state")
        out[str(d.get("ns"))] = f"a {what}" + (f" (state {state})" if state else "")
    return out, ""
