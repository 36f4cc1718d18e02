"""The sharding model over the catalog: shards, databases, sharded collections, chunks, zones.

Metadata lives as documents in `sandbox.catalog` (config.shards, config.databases,
config.collections, config.tags, config.settings, ...) exactly as the imitated version
writes them (reference §2); chunks live in one `ChunkStore` per collection, served as
`config.chunks` by `config_views.ChunksView` (which the Sandbox mounts). Commands and the
balancer read and change the cluster only through this class and `ChunkStore`, with the
sandbox's command lock held.

For the balancer:
    cluster.shard_names() / shard_doc(name) / shard_zones(name) / is_draining(name)
    cluster.shards_in_zone(zone), zone_exists(zone)
    cluster.sharded_namespaces(), collection_doc(ns), key_pattern(ns), chunks(ns)
    cluster.zone_ranges(ns) -> [ZoneRange] sorted by min; zone_for_range(ns, lo, hi)
    cluster.setting(_id), chunk_size_bytes(ns)
    cluster.now_ts() (cluster time for lastmod history), log_change(...), log_action(...)
"""

from __future__ import annotations

import datetime as dt
import itertools
import uuid as uuidlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from bson import Binary, ObjectId, Timestamp

from zonectl.sandbox.bounds import range_contains
from zonectl.sandbox.catalog.chunk_doc import DocForm
from zonectl.sandbox.catalog.chunks import ChunkStore
from zonectl.sandbox.catalog.namespaces import Catalog
from zonectl.sandbox.catalog.store import Collection, Document
from zonectl.sandbox.catalog.volumes import Volumes
from zonectl.sandbox.clock import Clock
from zonectl.sandbox.keyorder import compare, encode
from zonectl.sandbox.versions import VersionProfile

SHARDS = "config.shards"
DATABASES = "config.databases"
COLLECTIONS = "config.collections"
CHUNKS = "config.chunks"
TAGS = "config.tags"
SETTINGS = "config.settings"
VERSION = "config.version"
CHANGELOG = "config.changelog"
ACTIONLOG = "config.actionlog"
MONGOS = "config.mongos"
MIGRATIONS = "config.migrations"

_MB = 1024 * 1024


@dataclass(frozen=True)
class ZoneRange:
    """One `config.tags` document."""

    ns: str
    min: dict[str, Any]
    max: dict[str, Any]
    zone: str
    id: Any


class Cluster:
    def __init__(self, catalog: Catalog, clock: Clock, version: VersionProfile) -> None:
        self.catalog = catalog
        self.clock = clock
        self.version = version
        self._stores: dict[str, ChunkStore] = {}
        self._by_uuid: dict[bytes, tuple[ChunkStore, Any]] = {}
        self._ts = (0, 0)
        # Replica sets addShard can reach (cluster file `spareShards`: {name, host}); None
        # for a sandbox built by commands alone, where any host answers (commands/add_shard.py).
        self.spares: list[dict[str, str]] | None = None
        # Each shard's volume and what each collection's files keep allocated (volumes.py).
        self.volumes = Volumes()
        for ns in (SHARDS, DATABASES, COLLECTIONS, TAGS, SETTINGS, VERSION, CHANGELOG):
            catalog.ensure(ns)
        # config.version since 5.0 holds only the cluster id (minCompatibleVersion and
        # currentVersion were dropped with the FCV-based upgrade path).
        self.coll(VERSION).put({"_id": 1, "clusterId": ObjectId()})

    # ------------------------------------------------------------------ basics
    @property
    def version_major(self) -> int:
        return self.version.version_array[0]

    def coll(self, ns: str) -> Collection:
        return self.catalog.ensure(ns)

    def now(self) -> dt.datetime:
        return self.clock.now()

    def now_ts(self) -> Timestamp:
        """A strictly increasing cluster time from the sandbox clock (seconds, counter)."""
        secs = int(self.now().timestamp())
        last_secs, inc = self._ts
        self._ts = (secs, 1) if secs > last_secs else (last_secs, inc + 1)
        return Timestamp(*self._ts)

    def ts_state(self) -> tuple[int, int]:
        return self._ts

    def restore_ts(self, secs: int, inc: int) -> None:
        """Continue cluster time after a restart (persistence): never go backwards."""
        self._ts = max(self._ts, (secs, inc))

    def chunk_form(self) -> DocForm:
        return DocForm(
            by_uuid=self.version.chunks_keyed_by_uuid,
            on_current_shard_since=self.version_major >= 7,
        )

    # ------------------------------------------------------------------ shards
    def shard_docs(self) -> list[Document]:
        return list(self.coll(SHARDS))

    def shard_names(self) -> list[str]:
        return [d["_id"] for d in self.coll(SHARDS)]

    def shard_doc(self, name: str) -> Document | None:
        return self.coll(SHARDS).get(name)

    def shard_zones(self, name: str) -> list[str]:
        doc = self.shard_doc(name)
        return list(doc.get("tags", [])) if doc else []

    def is_draining(self, name: str) -> bool:
        doc = self.shard_doc(name)
        return bool(doc and doc.get("draining"))

    def shards_in_zone(self, zone: str) -> list[str]:
        return [d["_id"] for d in self.coll(SHARDS) if zone in d.get("tags", [])]

    def zone_exists(self, zone: str) -> bool:
        """A zone exists exactly when some shard carries it (reference §1.1)."""
        return any(zone in d.get("tags", []) for d in self.coll(SHARDS))

    def add_shard(self, name: str, host: str, zones: Sequence[str] = ()) -> Document:
        doc: Document = {"_id": name, "host": host, "state": 1}
        if self.version_major >= 5:
            doc["topologyTime"] = self.now_ts()  # type_shard.idl, 5.0+
        if zones:
            doc["tags"] = list(dict.fromkeys(zones))
        self.coll(SHARDS).put(doc)
        return doc

    def set_shard_field(self, name: str, field: str, value: Any) -> None:
        self._set_field(SHARDS, self.shard_doc(name), field, value)

    def _set_field(self, coll: str, doc: Document | None, field: str, value: Any) -> None:
        """Set `field` (None removes it) on a copy of `doc` and store it; no doc, no-op."""
        if doc is None:
            return
        doc = dict(doc)
        if value is None:
            doc.pop(field, None)
        else:
            doc[field] = value
        self.coll(coll).put(doc)

    # --------------------------------------------------------------- databases
    def database_doc(self, name: str) -> Document | None:
        return self.coll(DATABASES).get(name)

    def ensure_database(self, name: str, primary: str | None = None) -> Document:
        """The database entry, created with a primary shard if missing (5.0+ form, DOCS-14450;
        `partitioned` was deprecated in 6.0 and is not written from 7.0, inferred)."""
        doc = self.database_doc(name)
        if doc is not None:
            return doc
        names = self.shard_names()
        doc = {"_id": name, "primary": primary or (names[0] if names else "")}
        if self.version_major < 7:
            doc["partitioned"] = True
        doc["version"] = {"uuid": _new_uuid(), "timestamp": self.now_ts(), "lastMod": 1}
        self.coll(DATABASES).put(doc)
        return doc

    # ------------------------------------------------------------- collections
    def sharded_namespaces(self) -> list[str]:
        """Sharded collections; not 8.0's tracked `unsplittable` ones, which the balancer
        leaves alone (they move only by moveCollection)."""
        return [ns for ns in sorted(self._stores) if self.is_sharded(ns)]

    def is_sharded(self, ns: str) -> bool:
        """A sharded collection: not 8.0's tracked `unsplittable` one, which has a chunk
        but which every balancer and chunk command answers NamespaceNotSharded
        (reference mongo-semantics.md §2.4, §4.2; jstests/sharding/move_range_basic.js)."""
        return ns in self._stores and not (self.collection_doc(ns) or {}).get("unsplittable")

    def collection_doc(self, ns: str) -> Document | None:
        return self.coll(COLLECTIONS).get(ns)

    def key_pattern(self, ns: str) -> dict[str, Any] | None:
        doc = self.collection_doc(ns)
        return dict(doc["key"]) if doc else None

    def chunks(self, ns: str) -> ChunkStore | None:
        return self._stores.get(ns)

    def stores(self) -> Iterator[ChunkStore]:
        return iter([self._stores[ns] for ns in sorted(self._stores)])

    def store_map(self) -> Mapping[str, ChunkStore]:
        """ns -> its chunk store, unordered (a view: do not keep it across changes)."""
        return MappingProxyType(self._stores)

    def store_by_uuid(self, value: Any) -> ChunkStore | None:
        """The store of the collection with this uuid: a dict lookup (as config.chunks'
        {uuid, min} index seeks it), the map rebuilt when a store is added, replaced or
        dropped, or a uuid changed."""
        key = encode(value)
        found = self._by_uuid.get(key)
        if found is not None:
            store, uuid = found  # the uuid object it was mapped by: unchanged if the same
            if self._stores.get(store.ns) is store and store.uuid is uuid:
                return store
        self._by_uuid = {encode(s.uuid): (s, s.uuid) for s in self._stores.values()}
        found = self._by_uuid.get(key)
        return found[0] if found is not None else None

    def create_collection(
        self,
        ns: str,
        key: Mapping[str, Any],
        *,
        unique: bool = False,
        bounds: Sequence[Mapping[str, Any]],
        shards: Sequence[str],
        sizes: Sequence[int] | None = None,
        counts: Sequence[int] | None = None,
        keys: Sequence[bytes] | None = None,
    ) -> ChunkStore:
        """Write the config.collections entry and the initial chunks (shardCollection);
        `keys`: the bounds' keystrings, when already encoded."""
        db = ns.split(".", 1)[0]
        if db != "config":  # config.databases has no config entry (config-dump.md §3.2)
            self.ensure_database(db, primary=shards[0] if shards else None)
        ts = self.now_ts()
        epoch = ObjectId()
        doc: Document = {
            "_id": ns,
            "lastmodEpoch": epoch,
            "lastmod": self.now().replace(microsecond=self.now().microsecond // 1000 * 1000),
            "timestamp": ts,
            "uuid": _new_uuid(),
            "key": dict(key),
            "unique": unique,
            "noBalance": False,
        }
        if self.version_major >= 7:
            doc["enableAutoMerge"] = True  # 7.0+ writes the auto-merger switch (ref §2.4)
        self.coll(COLLECTIONS).put(doc)
        store = ChunkStore(ns, doc["uuid"], epoch, self.chunk_form())
        store.load(bounds, shards, ts, sizes, counts, keys)
        self._stores[ns] = store
        self.volumes.track(store, key)
        return store

    def attach_store(self, store: ChunkStore) -> None:
        """Register a restored store (persistence)."""
        self._stores[store.ns] = store
        self.volumes.track(store)

    def set_collection_field(self, ns: str, field: str, value: Any) -> None:
        self._set_field(COLLECTIONS, self.collection_doc(ns), field, value)

    def drop_collection(self, ns: str) -> bool:
        """Drop a sharded collection: its entry, chunks and zone ranges (reference §1.7: the
        drop deletes config.tags documents since 4.0.2). Returns False if it was not sharded.
        A's crud `drop` handler calls this for sharded namespaces."""
        if ns not in self._stores:
            return False
        del self._stores[ns]
        self.volumes.forget(ns)  # WiredTiger drops the collection's files
        self.coll(COLLECTIONS).remove(ns)
        for zr in self.zone_ranges(ns):
            self.coll(TAGS).remove(zr.id)
        self.log_change("dropCollection", ns, {})
        return True

    # ------------------------------------------------------------------- zones
    def zone_ranges(self, ns: str | None = None) -> list[ZoneRange]:
        """config.tags ranges of `ns` (all namespaces if None), ordered by (ns, min)."""
        out = [
            ZoneRange(d["ns"], d["min"], d["max"], d["tag"], d["_id"])
            for d in self.coll(TAGS)
            if ns is None or d.get("ns") == ns
        ]
        out.sort(key=lambda z: (z.ns, encode(z.min)))
        return out

    def zone_for_range(self, ns: str, lo: Mapping[str, Any], hi: Mapping[str, Any]) -> str | None:
        """The zone whose range wholly contains [lo, hi), else None (reference §5.2)."""
        for zr in self.zone_ranges(ns):
            if range_contains(zr.min, zr.max, lo, hi):
                return zr.zone
        return None

    def zone_has_ranges(self, zone: str) -> bool:
        return any(d.get("tag") == zone for d in self.coll(TAGS))

    # ---------------------------------------------------------------- settings
    def setting(self, _id: str) -> Document | None:
        return self.coll(SETTINGS).get(_id)

    def chunk_size_bytes(self, ns: str | None = None) -> int:
        """Per-collection maxChunkSizeBytes, else settings.chunksize (MB), else the
        version's default (64 MB through 5.0, 128 MB from 6.0; reference §2.5)."""
        if ns is not None:
            doc = self.collection_doc(ns)
            if doc and doc.get("maxChunkSizeBytes"):
                return int(doc["maxChunkSizeBytes"])
        setting = self.setting("chunksize")
        if setting and isinstance(setting.get("value"), int | float) and setting["value"] > 0:
            return int(setting["value"] * _MB)
        return self.version.default_chunk_size_mb * _MB

    # -------------------------------------------------------------------- logs
    def log_change(
        self,
        what: str,
        ns: str,
        details: Mapping[str, Any],
        *,
        shard: str = "config",
        at: dt.datetime | None = None,
    ) -> None:
        """Append to config.changelog (reference §2.6); capped in MongoDB, bounded here.
        `shard` is who logs it (`ChangeLogType`: the shard id and its host as `server`);
        `at`: when it happened, if the sandbox notices it later (default: now)."""
        self._log(CHANGELOG, what, ns, details, shard, at)

    def log_action(self, what: str, details: Mapping[str, Any]) -> None:
        """Append to config.actionlog (balancer.round, balancer.start, ...)."""
        self._log(ACTIONLOG, what, "", details)

    def _log(
        self,
        coll_ns: str,
        what: str,
        ns: str,
        details: Mapping[str, Any],
        shard: str = "config",
        at: dt.datetime | None = None,
    ) -> None:
        now = self.now() if at is None else at
        host = str((self.shard_doc(shard) or {}).get("host", "sandbox"))
        server = host.split("/", 1)[-1].split(",", 1)[0]  # "rs0/h0:27018,h1:27018" -> h0:27018
        _id = f"{server}-{now.isoformat()}-{ObjectId()}"
        doc = {
            "_id": _id,
            "server": server,
            "shard": shard,
            "clientAddr": "",
            "time": now,
            "what": what,
            "ns": ns,
            "details": dict(details),
        }
        coll = self.coll(coll_ns)
        coll.put(doc)
        if len(coll) > _LOG_CAP:
            oldest = next(iter(coll))
            coll.remove(oldest["_id"])


_LOG_CAP = 10_000


def _new_uuid() -> Binary:
    return Binary.from_uuid(uuidlib.uuid4())


def bounds_in_order(bounds: Sequence[Mapping[str, Any]]) -> bool:
    return all(compare(a, b) < 0 for a, b in itertools.pairwise(bounds))
