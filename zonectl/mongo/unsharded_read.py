"""Reading what unsharded pins and namespace patterns need: databases and their primaries,
unsharded collections (one $listClusterCatalog on 8.0.10+/8.1+, else one listCollections
per database), tracked `unsplittable` ones, per-shard sizes, moveCollection operations in
flight, and collection sizes for moves.

Read only when the policy has a pattern or pins an unsharded collection; otherwise nothing
beyond the usual config reads is sent.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import LiveMove, LiveUnsharded
from zonectl.model.desired import DesiredState
from zonectl.mongo.cluster_catalog import read_cluster_catalog
from zonectl.mongo.connect import Connection
from zonectl.mongo.state import WHOLE
from zonectl.plan.ops import Impact
from zonectl.plan.plan import Plan

INTERNAL = frozenset({"admin", "config", "local"})
THREADS = 8


@dataclass
class Listing:
    """What the live cluster holds beyond config.shards/tags (see module doc)."""

    databases: dict[str, str] = field(default_factory=dict)  # db -> primary shard
    unsharded: dict[str, LiveUnsharded] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)  # every listed ns -> its type
    moves: list[LiveMove] = field(default_factory=list)
    # listDatabases' bytes per shard, zonectl's own database aside: the load a moveCollection
    # target is chosen by, which apply's own lease and journal must not change between the
    # plan shown and the plan run
    shard_bytes: dict[str, int] = field(default_factory=dict)
    sharded: list[dict[str, Any]] = field(default_factory=list)  # all config.collections
    round_trips: int = 0


def needs_listing(desired: DesiredState, sharded: Mapping[str, Any]) -> bool:
    """Patterns, or a pin/window/sampling on a managed namespace that is not sharded
    (sampling: a view or time-series collection cannot be sampled)."""
    if desired.patterns:
        return True
    return any(
        (cp.pin or cp.firehose or cp.sampling) and ns not in sharded
        for ns, cp in desired.collections.items()
    )


def wanted_databases(desired: DesiredState, names: list[str]) -> list[str]:
    """Databases whose collections the policy may manage: those of exact entries and those a
    pattern's database part matches; never admin/config/local or zonectl's own."""
    skip = INTERNAL | {desired.own_database}
    wanted = {ns.split(".", 1)[0] for ns in desired.collections}
    globs = [p.split(".", 1)[0] for p in desired.patterns]
    for db in names:
        if any(fnmatch.fnmatchcase(db, g) for g in globs):
            wanted.add(db)
    return sorted((wanted & set(names)) - skip)


def read_listing(
    conn: Connection,
    desired: DesiredState,
    entries: Iterable[Mapping[str, Any]] | None = None,
) -> Listing:
    """listDatabases, config.databases, config.collections (unless `entries` are every
    entry of it, as the run's state read already returned them), the wanted databases'
    collections ($listClusterCatalog, else one listCollections each and the tracked
    collections' chunk), and (8.0+) config.reshardingOperations."""
    out = Listing()
    client, config = conn.client, conn.client.config
    try:
        dbs = client.admin.command({"listDatabases": 1})["databases"]
        out.round_trips += 1
        for d in dbs:
            if d.get("name") == desired.own_database:
                continue  # zonectl's lease and journal (shard_bytes)
            for shard, size in (d.get("shards") or {}).items():
                out.shard_bytes[str(shard)] = out.shard_bytes.get(str(shard), 0) + int(size)
        databases = config.databases.find({}, batch_size=WHOLE)  # one reply each, no getMore
        out.databases = {str(d["_id"]): str(d.get("primary", "")) for d in databases}
        out.round_trips += 1
        if entries is None:
            entries = config.collections.find({}, batch_size=WHOLE)
            out.round_trips += 1
        out.sharded = [dict(d) for d in entries if not d.get("dropped")]
        names = sorted({str(d["name"]) for d in dbs} | set(out.databases))
        tracked = {str(d["_id"]): d for d in out.sharded if d.get("unsplittable")}
        by_db: dict[str, list[dict[str, Any]]] = {}
        for d in out.sharded:
            if not d.get("unsplittable"):
                by_db.setdefault(str(d["_id"]).split(".", 1)[0], []).append(d)
        wanted = wanted_databases(desired, names)
        listed_dbs = read_cluster_catalog(conn, wanted)  # one aggregation on 8.0.10+/8.1+
        if listed_dbs is None:
            listed_dbs = _list_collections(conn, wanted)
            out.round_trips += len(wanted)
        else:
            out.round_trips += 1
        for db, entries in listed_dbs:
            for entry in entries:
                _add_collection(out, db, entry, tracked, by_db.get(db, []), conn)
        if _major(conn.version) >= 8:
            out.round_trips += 1
            for doc in config.reshardingOperations.find({"provenance": "moveCollection"}):
                out.moves.append(_move(doc))
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading databases and collections failed: {redact(str(exc))}"
        ) from None
    return out


def _list_collections(
    conn: Connection, databases: list[str]
) -> list[tuple[str, list[dict[str, Any]]]]:
    """listCollections of each database (one command each), where $listClusterCatalog
    (cluster_catalog.py) is absent or refused; sent from a few threads so a distant
    mongos's latency is paid about once."""
    if not databases:
        return []

    def one(db: str) -> tuple[str, list[dict[str, Any]]]:
        return db, [dict(e) for e in conn.client[db].list_collections()]

    with ThreadPoolExecutor(min(THREADS, len(databases))) as pool:
        return list(pool.map(one, databases))


def _add_collection(
    out: Listing,
    db: str,
    entry: Mapping[str, Any],
    tracked: Mapping[str, Any],
    sharded: list[dict[str, Any]],
    conn: Connection,
) -> None:
    name = str(entry["name"])
    ns = f"{db}.{name}"
    kind = str(entry.get("type", "collection"))
    out.kinds[ns] = kind
    if name.startswith("system."):
        return
    capped = bool((entry.get("options") or {}).get("capped"))
    if any(d["_id"] == ns for d in sharded):
        return
    shard = out.databases.get(db, "")
    doc = tracked.get(ns)
    if doc is not None and entry.get("shards"):
        shard = str(entry["shards"][0])  # $listClusterCatalog: its one chunk's owner
    elif doc is not None:
        chunk = conn.client.config.chunks.find_one({"uuid": doc.get("uuid")}, {"shard": 1})
        out.round_trips += 1
        shard = str(chunk["shard"]) if chunk else shard
    out.unsharded[ns] = LiveUnsharded(ns, shard, kind, capped, tracked=doc is not None)


def _move(doc: Mapping[str, Any]) -> LiveMove:
    recipients = doc.get("recipientShards") or [{}]
    donors = doc.get("donorShards") or [{}]
    return LiveMove(
        namespace=str(doc.get("ns", "")),
        to_shard=str(recipients[0].get("id", "")),
        from_shard=str(donors[0].get("id", "")),
        started=doc.get("startTime"),
        state=str(doc.get("state", "")),
    )


def read_move(conn: Connection, ns: str) -> LiveMove | None:
    """The moveCollection of `ns` running on the server, if any (8.0+)."""
    if _major(conn.version) < 8:
        return None
    try:
        doc = conn.client.config.reshardingOperations.find_one({"ns": ns})
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading config.reshardingOperations failed: {redact(str(exc))}"
        ) from None
    return _move(doc) if doc else None


def read_moves(conn: Connection) -> list[LiveMove]:
    """Every moveCollection running on the server (8.0+; none before)."""
    if _major(conn.version) < 8:
        return []
    try:
        docs = conn.client.config.reshardingOperations.find({"provenance": "moveCollection"})
        return [_move(doc) for doc in docs]
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading config.reshardingOperations failed: {redact(str(exc))}"
        ) from None


def read_home_shard(conn: Connection, ns: str) -> str | None:
    """The shard an unsharded collection lives on now (its one chunk, else the primary)."""
    config = conn.client.config
    try:
        entry = config.collections.find_one({"_id": ns})
        if entry and entry.get("unsplittable"):
            chunk = config.chunks.find_one({"uuid": entry.get("uuid")}, {"shard": 1})
            return str(chunk["shard"]) if chunk else None
        if entry and not entry.get("dropped"):
            return None  # sharded
        db = config.databases.find_one({"_id": ns.split(".", 1)[0]})
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading where {ns} lives failed: {redact(str(exc))}"
        ) from None
    return str(db["primary"]) if db else None


def read_move_impacts(conn: Connection, plan: Plan) -> dict[int, Impact]:
    """Bytes each moveCollection copies, from collStats (None-free: skipped when refused);
    one command per moved collection, sent from a few threads so a distant mongos's latency
    is paid about once, not once per namespace."""
    wanted = [(i, r.ns) for i, op in enumerate(plan.ops) if (r := op.relocation()) is not None]

    def size(ns: str) -> int | None:
        db, name = ns.split(".", 1)
        try:
            return int(conn.client[db].command({"collStats": name}).get("size", 0))
        except OperationFailure:
            return None
        except PyMongoError as exc:
            why = redact(str(exc))
            raise ClusterError(f"{conn.uri}: collStats of {ns} failed: {why}") from None

    if not wanted:
        return {}
    with ThreadPoolExecutor(min(THREADS, len(wanted))) as pool:
        sizes = list(pool.map(size, [ns for _, ns in wanted]))
    return {
        i: Impact(chunks=1, migrating=1, bytes=n)
        for (i, _), n in zip(wanted, sizes, strict=True)
        if n is not None
    }


def _major(version: str) -> int:
    head = version.split(".")[0]
    return int(head) if head.isdigit() else 7


class MongoUnsharded:
    """apply's `unsharded` port: location and in-flight move of one collection."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def read_home_shard(self, ns: str) -> str | None:
        return read_home_shard(self._conn, ns)

    def read_move(self, ns: str) -> LiveMove | None:
        return read_move(self._conn, ns)
