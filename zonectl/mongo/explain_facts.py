"""Each sharded collection's explain facts (zonectl.explain.facts) from what was read: its
config.collections entry, its chunks tallied by (shard, zone), owned bytes and orphans
($shardedDataDistribution), migration failures (config.changelog) and the DDL holding it
(config.reshardingOperations). Shared by explain (zonectl/mongo/explain_read.py) and status
(zonectl/mongo/status.py), so both read these facts once and the same way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.explain.facts import NO_ZONE, CollectionFacts, Failures, Tally
from zonectl.model.cluster import LiveRange
from zonectl.mongo.chunk_scan import ChunkCompliance
from zonectl.mongo.chunk_sizes import DEFAULT_CHUNK_MB
from zonectl.mongo.connect import Connection
from zonectl.mongo.state import WHOLE

Doc = Mapping[str, Any]
UNAUTHORIZED = 13
SDD_SINCE = (6, 0, 3)  # $shardedDataDistribution, and balancing by data size
SDD_PRIVILEGE = (
    "$shardedDataDistribution was refused: needs the shardedDataDistribution action "
    "(clusterMonitor grants it)"
)
HELD_PRIVILEGE = "config.reshardingOperations was refused: needs find on it (clusterMonitor)"
Tallies = dict[str, dict[tuple[str, str], Tally]]


@dataclass(frozen=True)
class Distribution:
    """$shardedDataDistribution per collection and shard: owned bytes and orphaned
    documents; both None, with `note` saying why, when refused; None with no note before
    6.0.3 (no such stage; that release balances by chunk counts)."""

    sizes: Mapping[str, Mapping[str, int]] | None = None
    orphans: Mapping[str, Mapping[str, int]] | None = None
    note: str = ""


@dataclass(frozen=True)
class Held:
    """What config.reshardingOperations holds: its documents, and per collection the DDL
    holding it ("a reshardCollection (state cloning)"); `note`: why it was not read."""

    docs: tuple[Doc, ...] = ()
    ddl: Mapping[str, str] = field(default_factory=dict)
    note: str = ""


def version_tuple(version: str) -> tuple[int, ...]:
    parts = []
    for p in version.split(".")[:3]:
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def read_distribution(conn: Connection) -> Distribution:
    """Owned bytes and orphaned documents per collection and shard (6.0.3+), one aggregate."""
    if version_tuple(conn.version) < SDD_SINCE:
        return Distribution()
    try:
        docs = list(
            conn.client.admin.aggregate([{"$shardedDataDistribution": {}}], batchSize=WHOLE)
        )
    except OperationFailure as exc:
        if exc.code == UNAUTHORIZED:
            return Distribution(note=SDD_PRIVILEGE)
        return Distribution(note=f"$shardedDataDistribution failed: {redact(str(exc))}")
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
    return Distribution(sizes, orphans)


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def read_held(conn: Connection) -> Held:
    """Collections a resharding, moveCollection or unshardCollection holds
    (config.reshardingOperations, one find; they set allowMigrations: false meanwhile)."""
    try:
        docs = tuple(conn.client.config.reshardingOperations.find({}, batch_size=WHOLE))
    except OperationFailure as exc:
        if exc.code == UNAUTHORIZED:
            return Held(
                note="config.reshardingOperations was refused: needs find on it (clusterMonitor)"
            )
        return Held(note=f"reading config.reshardingOperations failed: {redact(str(exc))}")
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading config.reshardingOperations failed: {redact(str(exc))}"
        ) from None
    out = {}
    for d in docs:
        what = str(d.get("provenance") or "reshardCollection")
        state = d.get("state")
        out[str(d.get("ns"))] = f"a {what}" + (f" (state {state})" if state else "")
    return Held(docs, out)


def tallies_of(scans: Mapping[str, ChunkCompliance]) -> tuple[Tallies, dict[str, int]]:
    """(shard, zone) tallies and straddling chunks per collection from compliance scans."""
    tallies: Tallies = {}
    straddling: dict[str, int] = {}
    for ns, scan in scans.items():
        tallies[ns] = {
            (shard, zone or NO_ZONE): Tally(n, j) for (shard, zone), (n, j) in scan.tally.items()
        }
        straddling[ns] = scan.straddling
    return tallies, straddling


def chunk_mb(settings: Mapping[str, Mapping[str, Any]] | None, version: str) -> int:
    """The cluster's chunk size in MB: config.settings `chunksize`, else the release's."""
    setting = (settings or {}).get("chunksize") or {}
    value = setting.get("value")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return int(value)
    return DEFAULT_CHUNK_MB.get(version_tuple(version)[0], 128)


@dataclass(frozen=True)
class FactSources:
    """Everything `collection_facts` reads, besides each collection's entry."""

    ranges: Mapping[str, Sequence[LiveRange]]
    tallies: Tallies
    straddling: Mapping[str, int]
    distribution: Distribution
    failures: Mapping[str, Failures]
    history_note: str
    held: Held
    default_mb: int
    by_data_size: bool


def collection_facts(entries: Sequence[Doc], src: FactSources) -> tuple[CollectionFacts, ...]:
    """The facts of each config.collections entry, in the order given."""
    return tuple(_facts(doc, src) for doc in entries)


def _facts(doc: Doc, src: FactSources) -> CollectionFacts:
    ns = str(doc["_id"])
    sizes_note = src.distribution.note
    unknown: dict[str, str] = {}
    if sizes_note and src.by_data_size:
        unknown["below-threshold"] = "the data-size rule could not be checked: " + sizes_note
    if sizes_note:
        unknown["range-deletions-pending"] = "orphans could not be read: " + sizes_note
    if src.history_note:
        unknown["migration-failing"] = "migration failures could not be read: " + src.history_note
    if src.held.note:
        unknown["ddl-in-progress"] = "DDL in flight could not be read: " + src.held.note
    tally = src.tallies.get(ns, {})
    held = src.held.ddl.get(ns, "")
    if not held and not tally:
        held = "a drop or creation (the collection has no chunks)"
    sizes = src.distribution.sizes
    return CollectionFacts(
        ns=ns,
        tally=tally,
        range_zones=frozenset(r.zone for r in src.ranges.get(ns, ())),
        straddling=src.straddling.get(ns, 0),
        sizes=None if sizes is None else sizes.get(ns, {}),
        max_chunk_bytes=int(doc.get("maxChunkSizeBytes") or src.default_mb * 1024 * 1024),
        no_balance=bool(doc.get("noBalance", False)),
        allow_migrations=doc.get("allowMigrations", True) is not False
        and doc.get("permitMigrations", True) is not False,
        migrations_field=("allowMigrations" if doc.get("allowMigrations", True) is False else ""),
        defragmenting=bool(doc.get("defragmentCollection", False)),
        defrag_phase=str(doc.get("defragmentationPhase") or ""),
        ddl=held,
        failures=None if src.history_note else src.failures.get(ns, Failures(0)),
        orphans=(src.distribution.orphans or {}).get(ns, {}),
        unknown=unknown,
    )
