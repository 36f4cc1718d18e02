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

from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.explain.facts import NO_ZONE, CollectionFacts, Tally
from zonectl.model.cluster import LiveRange, feature_release
from zonectl.model.keys import sort_key
from zonectl.mongo.chunk_scan_many import read_many_compliance
from zonectl.mongo.connect import Connection
from zonectl.mongo.explain_facts import (
    SDD_SINCE,
    FactSources,
    Tallies,
    chunk_mb,
    collection_facts,
    read_distribution,
    read_held,
    tallies_of,
    version_tuple,
)
from zonectl.mongo.migration_failures import read_failures
from zonectl.mongo.state import WHOLE, ConfigDocuments, read_config_documents

Doc = Mapping[str, Any]


@dataclass(frozen=True)
class ExplainRead:
    docs: ConfigDocuments
    collections: tuple[CollectionFacts, ...]
    notes: tuple[str, ...] = field(default=())


def by_data_size(version: str, fcv: str | None) -> bool:
    """6.0.3+ balances by data size (balancer-settings §6.1), at FCV 6.0+."""
    features = feature_release(version, fcv) or (7, 0)
    return version_tuple(version) >= SDD_SINCE and features >= (6, 0)


def zone_ranges(docs: ConfigDocuments) -> dict[str, list[LiveRange]]:
    """Each collection's zone ranges (config.tags) in key order."""
    ranges: dict[str, list[LiveRange]] = {}
    for t in docs.tags:
        ranges.setdefault(str(t["ns"]), []).append(
            LiveRange(str(t["ns"]), str(t["tag"]), dict(t["min"]), dict(t["max"]))
        )
    for rs in ranges.values():
        rs.sort(key=lambda r: sort_key(r.min))
    return ranges


def read_explain(conn: Connection, now: dt.datetime) -> ExplainRead:
    """Every sharded collection's facts (config.collections order by name)."""
    docs = read_config_documents(conn)
    entries = sorted(docs.collections, key=lambda d: str(d["_id"]))
    ranges = zone_ranges(docs)
    tallies, straddling = _read_chunks(conn, entries, ranges, docs.shards)
    distribution = read_distribution(conn)
    failures, history_note = read_failures(conn, now)
    held = read_held(conn)
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
    notes = tuple(n for n in (distribution.note, history_note, held.note) if n)
    return ExplainRead(docs, collection_facts(entries, sources), notes)


def _read_chunks(
    conn: Connection,
    entries: Sequence[Doc],
    ranges: Mapping[str, Sequence[LiveRange]],
    shards: Sequence[Doc],
) -> tuple[Tallies, dict[str, int]]:
    """(shard, zone) tallies per collection, and its chunks a zone boundary cuts. Zoned
    collections' chunks stream in one cursor and are placed in zones by zonectl's compliance
    walk (zonectl/mongo/chunk_scan.py); the others are counted by one aggregate."""
    zoned = [d for d in entries if ranges.get(str(d["_id"]))]
    plain = [d for d in entries if not ranges.get(str(d["_id"]))]
    shard_zones = {str(s["_id"]): tuple(s.get("tags") or ()) for s in shards}
    scans = read_many_compliance(conn, zoned, lambda ns: ranges.get(ns, ()), shard_zones)
    tallies, straddling = tallies_of(scans)
    tallies.update(_count_plain(conn, plain))
    return tallies, straddling


def _count_plain(conn: Connection, entries: Sequence[Doc]) -> Tallies:
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
    out: Tallies = {}
    for g in groups:
        ns = name.get(_ident(g["_id"].get("c")))
        if ns is not None:
            out.setdefault(ns, {})[(str(g["_id"]["s"]), NO_ZONE)] = Tally(int(g["n"]), int(g["j"]))
    return out


def _ident(value: Any) -> Any:
    """A hashable form of a uuid (bson Binary or uuid.UUID) or a namespace."""
    return bytes(value.bytes) if hasattr(value, "bytes") else value
