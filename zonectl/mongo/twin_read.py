"""Capture a live cluster for a twin, read-only: config documents (never a host), chunk
bounds streamed per collection in key order, sizes from collection statistics (or `dataSize`
with `measure`), and the migration history the forecast learns costs from. What a missing
privilege hides is named in the twin's notes; the rest is still captured. It returns what it
read; writing the twin's files is the caller's (zonectl/session/twin.py).

A migration that commits mid-read moves the collection version: the collection is read
again (up to `RETRIES` times, `AGAIN` between), then captured as read with a warning."""

from __future__ import annotations

from collections.abc import Generator, Iterator, Mapping
from typing import Any, Final, NamedTuple

import bson
from bson import Timestamp
from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.forecast.learn import Learned, learn
from zonectl.forecast.units import DEFAULT_COPY_RATE
from zonectl.model.keys import sort_key
from zonectl.mongo.changelog_read import read_migration_history
from zonectl.mongo.connect import Connection
from zonectl.mongo.volumes_read import read_volumes
from zonectl.twin import history
from zonectl.twin.capture import Capture, is_user_collection
from zonectl.twin.costs import section

RETRIES = 2
BATCH = 10_000
DEFAULT_CHUNK_MB = {4: 64, 5: 64}  # 128 MB from 6.0
_PRIV = "find on config.{coll} (the clusterMonitor role grants it)"


class ChunkRow(NamedTuple):
    """One chunk as the twin keeps it: bounds, owner, bytes and documents, jumbo flag."""

    min: Mapping[str, Any]
    max: Mapping[str, Any]
    shard: str
    nbytes: int
    docs: int
    jumbo: bool


# Yielded between two reads of one collection: the rows since its first are void.
AGAIN: Final = None


def _unauthorized(exc: PyMongoError) -> bool:
    return isinstance(exc, OperationFailure) and exc.code == 13


class LiveCapture:
    """One capture: `capture()` reads the metadata, `read_chunks` streams a collection."""

    def __init__(self, conn: Connection, *, measure: bool = False) -> None:
        self.conn = conn
        self.config = conn.client.config
        self.major = int(conn.version.split(".")[0]) if conn.version[:1].isdigit() else 7
        self.measure = measure
        self.notes: list[str] = []
        self.owned: dict[str, dict[str, tuple[int, int]]] | None = None
        self.chunksize_mb = DEFAULT_CHUNK_MB.get(self.major, 128)

    def _find(
        self, coll: str, query: Mapping[str, Any] | None = None, *, optional: bool = False
    ) -> list[dict[str, Any]]:
        try:
            return [dict(d) for d in self.config[coll].find(query or {})]
        except PyMongoError as exc:
            if _unauthorized(exc) and optional:
                self.notes.append(f"not captured: config.{coll}: needs {_PRIV.format(coll=coll)}")
                return []
            if _unauthorized(exc):
                raise ClusterError(
                    f"{self.conn.uri}: a twin needs {_PRIV.format(coll=coll)}"
                ) from None
            raise ClusterError(
                f"{self.conn.uri}: reading config.{coll} failed: {redact(str(exc))}"
            ) from None

    def capture(self) -> Capture:
        found = self._find("shards")
        shards = [{str(k): d[k] for k in ("_id", "tags", "draining") if k in d} for d in found]
        databases = [d for d in self._find("databases") if d.get("_id") not in ("admin", "config")]
        collections = sorted(
            (d for d in self._find("collections") if is_user_collection(d)),
            key=lambda d: str(d["_id"]),
        )
        tags = self._find("tags", optional=True)
        settings = self._find("settings", optional=True)
        # Query sampling (7.0+): config.queryAnalyzers, one document per configured collection.
        analyzers = self._find("queryAnalyzers", optional=True) if self.major >= 7 else []
        for s in settings:
            if s.get("_id") == "chunksize" and s.get("value"):
                self.chunksize_mb = int(s["value"])
        sizes = self._read_sizes()
        unsharded = self._read_unsharded(databases, collections)
        hosts = {str(d["host"]): str(d["_id"]) for d in found if "host" in d}
        volumes = read_volumes(self.conn, [str(d["_id"]) for d in databases], hosts)
        self.notes.extend(volumes.notes)
        now = self.conn.wall()
        log = read_migration_history(self.conn, now)
        learned = (
            Learned(model=None, samples=0, error=log.error)
            if log.error
            else learn(log.entries, now, float(DEFAULT_COPY_RATE))
        )
        if log.error:
            self.notes.append(f"costs assumed: {log.error}")
        fcv = self.conn.fcv
        if fcv is None:
            self.notes.append(
                "not captured: the FCV (admin.system.version): needs find on it "
                "(clusterMonitor grants it); the twin runs at its version's default"
            )
        return Capture(
            captured_from="live cluster (read-only)",
            shards=shards,
            databases=databases,
            collections=collections,
            tags=[{k: t[k] for k in ("ns", "min", "max", "tag")} for t in tags],
            settings=settings,
            server_version=self.conn.version or None,
            version_source="buildInfo",
            fcv=fcv,
            sizes=sizes,
            costs=section(learned),
            notes=self.notes,
            captured_at=now,
            history=history.newest(log.entries),
            analyzers=analyzers,
            volumes=volumes.shards,
            storage=volumes.storage,
            unsharded=unsharded,
            held={
                (u["shard"], u["ns"]): [u["bytes"], u["docs"]] for u in unsharded if "shard" in u
            },
        )

    def _read_unsharded(
        self, databases: list[dict[str, Any]], sharded: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Each unsharded collection: its kind (listCollections, one per database) and, but
        for a view, the shard holding it and its size (collStats through the mongos: its
        database's primary, or where an 8.0 moveCollection put it). Not read_namespaces: it
        adds config.tags' namespaces, collections that may not exist yet."""
        names = {str(d["_id"]) for d in sharded}
        out: list[dict[str, Any]] = []
        try:
            for d in databases:
                db = str(d["_id"])
                for info in self.conn.client[db].list_collections():
                    ns = f"{db}.{info['name']}"
                    if str(info["name"]).startswith("system.") or ns in names:
                        continue
                    out.append(self._unsharded(ns, info))
        except PyMongoError:  # its message names the hosts, which a twin never holds
            self.notes.append(
                "unsharded collections not captured: listing them needs listCollections "
                "on each database (the read role grants it); a policy pinning unsharded "
                "collections plans no moveCollection on the twin"
            )
            return []
        return out

    def _unsharded(self, ns: str, info: Mapping[str, Any]) -> dict[str, Any]:
        """One unsharded collection as the cluster file's `unsharded:` entry holds it."""
        options = info.get("options") or {}
        kind = str(info.get("type") or "collection")
        if kind == "collection" and options.get("capped"):
            kind = "capped"
        entry: dict[str, Any] = {"ns": ns, "type": kind}
        if kind == "view":
            return entry
        db, _, name = ns.partition(".")
        try:
            reply = self.conn.client[db].command("collStats", name)
        except PyMongoError:
            self.notes.append(f"sizes assumed: collStats of {ns} was refused (read grants it)")
            return entry
        holders = reply.get("shards")
        if isinstance(holders, Mapping) and len(holders) == 1:
            ((shard, stats),) = holders.items()
            entry["shard"] = str(shard)
            stats = stats if isinstance(stats, Mapping) else reply
        else:
            stats = reply
        entry["bytes"] = int(stats.get("size") or 0)
        entry["docs"] = int(stats.get("count") or 0)
        return entry

    def _read_sizes(self) -> str:
        if self.measure:
            return "measured per chunk (dataSize, estimate: true)"
        try:
            docs = list(self.conn.client.admin.aggregate([{"$shardedDataDistribution": {}}]))
        except PyMongoError as exc:
            if _unauthorized(exc):
                self.notes.append(
                    "not read: $shardedDataDistribution: needs the shardedDataDistribution "
                    "action (clusterMonitor, 6.0.3+); sizes from collStats instead"
                )
            return "estimated per shard from collStats (bytes of the collection over its chunks)"
        self.owned = {
            str(d["ns"]): {
                str(s["shardName"]): (
                    int(s.get("ownedSizeBytes") or 0),
                    int(s.get("numOwnedDocuments") or 0),
                )
                for s in d.get("shards", [])
            }
            for d in docs
        }
        return (
            "estimated per shard from $shardedDataDistribution "
            "(owned bytes and documents over the shard's chunks)"
        )

    def _per_shard(
        self, coll: Mapping[str, Any], where: Mapping[str, Any]
    ) -> dict[str, tuple[int, int]]:
        """Each shard's (bytes, documents) of one chunk of this collection, estimated."""
        ns = str(coll["_id"])
        owned = (self.owned or {}).get(ns)
        if owned is None:
            owned = self._coll_stats(ns)
        out = {}
        for shard, (nbytes, docs) in (owned or {}).items():
            n = int(
                self.config.command("count", "chunks", query={**where, "shard": shard}).get("n", 0)
            )
            if n:
                out[shard] = (nbytes // n, docs // n)
        return out

    def _coll_stats(self, ns: str) -> dict[str, tuple[int, int]] | None:
        db, _, name = ns.partition(".")
        try:
            reply = self.conn.client[db].command("collStats", name)
        except PyMongoError as exc:
            if _unauthorized(exc):
                self.notes.append(f"not read: collStats of {ns}: needs collStats (clusterMonitor)")
            return None
        shards = reply.get("shards")
        if not isinstance(shards, Mapping):
            return None
        return {
            str(s): (int(v.get("size") or 0), int(v.get("count") or 0)) for s, v in shards.items()
        }

    def read_chunks(self, coll: Mapping[str, Any]) -> Iterator[ChunkRow | None]:
        """The collection's chunks in key order; `AGAIN` when it changed while read and is
        read again from its first chunk (what came before `AGAIN` is void)."""
        ns = str(coll["_id"])
        by_uuid = self.major >= 5 and "uuid" in coll and "timestamp" in coll
        where: dict[str, Any] = {"uuid": coll["uuid"]} if by_uuid else {"ns": ns}
        limit = int(coll.get("maxChunkSizeBytes") or self.chunksize_mb * 1024 * 1024)
        try:
            per_shard = {} if self.measure else self._per_shard(coll, where)
            for attempt in range(RETRIES + 1):
                if (yield from self._stream(coll, where, per_shard, limit // 2)):
                    return
                if attempt < RETRIES:
                    yield AGAIN
            self.notes.append(
                f"{ns}: the collection version moved while it was read {RETRIES + 1} times "
                "(migrations committing): its chunks are as read, possibly mixed"
            )
        except PyMongoError as exc:
            raise ClusterError(
                f"{self.conn.uri}: reading the chunks of {ns} failed: {redact(str(exc))}"
            ) from None

    def _stream(
        self,
        coll: Mapping[str, Any],
        where: Mapping[str, Any],
        per_shard: Mapping[str, tuple[int, int]],
        assumed: int,
    ) -> Generator[ChunkRow, None, bool]:
        """Yield the chunks in key order; return False when the collection changed meanwhile: a
        chunk not starting where the one before ended (a split or merge half seen), or a
        chunk version above every one read (a migration committed after its chunk was read;
        the {uuid, lastmod} index answers that without a scan)."""
        fields = {"_id": 0, "min": 1, "max": 1, "shard": 1, "lastmod": 1, "jumbo": 1}
        fields["estimatedDataSizeBytes"] = 1
        cursor = self.config.chunks.find(where, fields).sort("min", 1).batch_size(BATCH)
        top = (0, 0)
        last: bytes | None = None
        consistent = True
        for d in cursor:
            shard = str(d["shard"])
            nbytes, docs = per_shard.get(shard, (assumed, 0))
            if self.measure:
                nbytes, docs = self._data_size(coll, d["min"], d["max"])
            elif d.get("estimatedDataSizeBytes") is not None:
                nbytes = int(d["estimatedDataSizeBytes"])
            yield ChunkRow(d["min"], d["max"], shard, nbytes, docs, bool(d.get("jumbo")))
            version = d.get("lastmod")
            if isinstance(version, Timestamp):
                top = max(top, (version.time, version.inc))
            if last is not None and last != bson.encode(d["min"]):
                consistent = consistent and sort_key(bson.decode(last)) == sort_key(d["min"])
            last = bson.encode(d["max"])
        later = self.config.chunks.find_one(
            {**where, "lastmod": {"$gt": Timestamp(*top)}}, {"_id": 1}
        )
        return consistent and later is None

    def _data_size(self, coll: Mapping[str, Any], lo: Any, hi: Any) -> tuple[int, int]:
        command = {
            "dataSize": coll["_id"],
            "keyPattern": coll["key"],
            "min": lo,
            "max": hi,
            "estimate": True,
        }
        reply = self.conn.client.admin.command(command)
        return int(reply.get("size") or 0), int(reply.get("numObjects") or 0)
