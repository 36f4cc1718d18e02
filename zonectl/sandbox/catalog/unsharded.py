"""Unsharded collections in the sharding model: where each lives, its nominal size and kind,
implicit database registration, and tracking a collection that moveCollection moved.

An unsharded collection lives on its database's primary shard (config.databases) until 8.0's
moveCollection tracks it: then config.collections holds it with `unsplittable: true` and
config.chunks one chunk [MinKey, MaxKey) of key {_id: 1} on the shard it was moved to
(mongo:jstests/sharding/move_collection_basic.js). Kind, options and nominal sizes are kept
in the collection's `meta` (what listCollections and collStats answer from).
"""

from __future__ import annotations

from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.catalog.cluster import COLLECTIONS, Cluster
from zonectl.sandbox.catalog.store import MemoryCollection

INTERNAL_DATABASES = frozenset({"admin", "config", "local"})
NOMINAL_DOC_BYTES = 256  # the size listDatabases already assumes per document
RESHARDING_OPERATIONS = "config.reshardingOperations"


def meta_of(cluster: Cluster, ns: str) -> dict[str, Any] | None:
    """The collection's kind/options/size record, or None when the namespace does not exist."""
    coll = cluster.catalog.get(ns)
    if coll is None:
        return None
    return getattr(coll, "meta", {})


def kind_of(cluster: Cluster, ns: str) -> str | None:
    """ "collection", "view" or "timeseries" (listCollections' `type`); None: no such ns."""
    meta = meta_of(cluster, ns)
    return None if meta is None else str(meta.get("type", "collection"))


def size_of(cluster: Cluster, ns: str) -> tuple[int, int]:
    """(bytes, documents): the cluster file's nominal figures, else counted from documents."""
    coll = cluster.catalog.get(ns)
    if coll is None:
        return 0, 0
    meta = getattr(coll, "meta", {})
    count = int(meta["count"]) if "count" in meta else len(coll)
    size = int(meta["size"]) if "size" in meta else count * NOMINAL_DOC_BYTES
    return size, count


def is_unsplittable(cluster: Cluster, ns: str) -> bool:
    doc = cluster.collection_doc(ns)
    return bool(doc and doc.get("unsplittable"))


def home_shard(cluster: Cluster, ns: str) -> str | None:
    """The shard holding an unsharded collection: its one chunk once tracked, else the
    database's primary; None for a sharded collection or an unknown database."""
    store = cluster.chunks(ns)
    if store is not None:
        return store.shard_at(0) if is_unsplittable(cluster, ns) and len(store) else None
    db = cluster.database_doc(ns.split(".", 1)[0])
    return str(db["primary"]) if db else None


def shard_bytes(cluster: Cluster) -> dict[str, int]:
    """Nominal bytes per shard: chunks of every tracked collection plus unsharded ones."""
    totals = {name: 0 for name in cluster.shard_names()}
    for per_shard in database_bytes(cluster).values():
        for shard, size in per_shard.items():
            totals[shard] = totals.get(shard, 0) + size
    return totals


def database_bytes(cluster: Cluster) -> dict[str, dict[str, int]]:
    """db -> shard -> nominal bytes (what a mongos's listDatabases reports as `shards`)."""
    out: dict[str, dict[str, int]] = {}
    for store in cluster.stores():
        sizes, _ = store.sizes()
        per_shard = out.setdefault(store.ns.split(".", 1)[0], {})
        for i, size in enumerate(sizes):
            shard = store.shard_at(i)
            per_shard[shard] = per_shard.get(shard, 0) + size
    for ns in cluster.catalog.namespaces():
        db = ns.split(".", 1)[0]
        if db in INTERNAL_DATABASES or cluster.chunks(ns) is not None:
            continue
        home = home_shard(cluster, ns)
        if home is not None:
            per_shard = out.setdefault(db, {})
            per_shard[home] = per_shard.get(home, 0) + size_of(cluster, ns)[0]
    return out


def register_database(cluster: Cluster, ns: str) -> None:
    """Implicit database creation through the mongos: the first write into a new database
    registers it in config.databases. The primary is the shard with the least data (manual,
    "Primary Shard": "the mongos selects the primary shard ... by picking the shard in the
    cluster that has the least amount of data"); ties go to the first shard by name."""
    db = ns.split(".", 1)[0]
    if db in INTERNAL_DATABASES or cluster.database_doc(db) is not None:
        return
    names = cluster.shard_names()
    if not names:
        return
    totals = shard_bytes(cluster)
    primary = min(sorted(names), key=lambda name: totals.get(name, 0))
    cluster.ensure_database(db, primary=primary)


def track_moved(cluster: Cluster, ns: str, to: str) -> None:
    """Commit a moveCollection: (re)write the unsplittable entry, one chunk on `to`."""
    size, count = size_of(cluster, ns)
    # A move rewrites the collection on the recipient (a resharding): the donor drops its files.
    cluster.volumes.forget(ns)
    bounds: list[dict[str, Any]] = [{"_id": MinKey()}, {"_id": MaxKey()}]
    store = cluster.chunks(ns)
    if store is not None:  # moved before: its one chunk changes shard
        store.load(bounds, [to], cluster.now_ts(), [size], [count])
    else:
        cluster.create_collection(
            ns, {"_id": 1}, bounds=bounds, shards=[to], sizes=[size], counts=[count]
        )
    doc = cluster.collection_doc(ns)
    assert doc is not None
    cluster.coll(COLLECTIONS).put({**doc, "unsplittable": True})


def set_meta(coll: Any, **fields: Any) -> None:
    """Record kind/options/sizes on a plain collection (seeding, `create` options)."""
    if isinstance(coll, MemoryCollection):
        coll.meta.update(fields)


_CREATE_OPTIONS = ("capped", "size", "max", "timeseries", "viewOn", "pipeline")


def create_with_options(cluster: Cluster, ns: str, body: dict[str, Any]) -> None:
    """`create` with its options: a view is stored in <db>.system.views and a time-series
    collection also gets its <db>.system.buckets.<name> collection, as listCollections of a
    real server shows both (mongo:jstests/core/timeseries/timeseries_create_invalid_view.js)."""
    options = {k: body[k] for k in _CREATE_OPTIONS if k in body}
    kind = "view" if "viewOn" in options else "timeseries" if "timeseries" in options else None
    db, name = ns.split(".", 1)
    coll = cluster.catalog.ensure(ns)
    set_meta(coll, type=kind or "collection", options=options)
    if kind == "view":
        view = {"_id": ns, "viewOn": options["viewOn"], "pipeline": options.get("pipeline", [])}
        cluster.catalog.ensure(f"{db}.system.views").put(view)
    elif kind == "timeseries":
        cluster.catalog.ensure(f"{db}.system.buckets.{name}")
