"""Request parsing shared by the balancer and chunk commands (split, moveChunk, moveRange...).

Namespace checks, the routing-table look-up, and the shard-key helpers the mongos uses
(`ShardKeyPattern::isShardKey`, `normalizeShardKey`, `extractShardKeyFromQuery`), each
raising the error its MongoDB source raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.catalog import zone_rules as rules
from zonectl.sandbox.commands.registry import Request
from zonectl.sandbox.errors import CommandError

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.chunks import ChunkStore
    from zonectl.sandbox.catalog.cluster import Cluster

MB = 1024 * 1024


def typed_namespace(request: Request) -> str:
    """An IDL `namespace: type` parameter (balancerCollectionStatus, moveChunk 6.0+, ...)."""
    value = request.arg
    if not isinstance(value, str):
        raise CommandError.of(
            "TypeMismatch",
            f"BSON field '{request.name}.{request.name}' is the wrong type "
            f"'{type_name(value)}', expected type 'string'",
        )
    if not rules.is_valid_namespace(value):
        raise CommandError.of("InvalidNamespace", f"Invalid namespace specified '{value}'")
    return value


def fully_qualified_namespace(request: Request) -> str:
    """`CommandHelpers::parseNsFullyQualified` (errmsg-style split / moveChunk 5.0)."""
    value = request.arg
    if not isinstance(value, str):
        raise CommandError.of("BadValue", f"collection name has invalid type {type_name(value)}")
    if not rules.is_valid_namespace(value):
        raise CommandError.of("InvalidNamespace", f"Invalid namespace specified '{value}'")
    return value


def routing_store(cluster: Cluster, ns: str) -> ChunkStore:
    """`getShardedCollectionRoutingInfoWithRefresh`: the database, then the collection."""
    db = ns.split(".", 1)[0]
    store = cluster.chunks(ns)
    if store is None or not cluster.is_sharded(ns):  # an 8.0 unsplittable one: unsharded
        if cluster.database_doc(db) is None:
            raise CommandError.of("NamespaceNotFound", f"database {db} not found")
        raise CommandError.of("NamespaceNotSharded", f"Collection {ns} is not sharded.")
    return store


def key_pattern(cluster: Cluster, ns: str) -> dict[str, Any]:
    key = cluster.key_pattern(ns)
    assert key is not None
    return key


def is_shard_key(doc: Any, key: Mapping[str, Any]) -> bool:
    """`ShardKeyPattern::isShardKey`: an object holding exactly the key's fields."""
    return isinstance(doc, Mapping) and len(doc) == len(key) and all(f in doc for f in key)


def normalize(doc: Mapping[str, Any], key: Mapping[str, Any]) -> dict[str, Any]:
    """`normalizeShardKey`: the fields in key-pattern order."""
    return {field: doc[field] for field in key}


def extract_shard_key(query: Mapping[str, Any], key: Mapping[str, Any]) -> dict[str, Any]:
    """`extractShardKeyFromQuery` for equality queries: {} when a key field is not pinned.

    Hashed fields are not supported here (the sandbox does not reimplement MongoDB's
    md5-based hash), so a `find` on a hashed key pins nothing; use `bounds` instead.
    """
    out: dict[str, Any] = {}
    for field, kind in key.items():
        if kind == "hashed" or field not in query:
            return {}
        value = query[field]
        if isinstance(value, Mapping) and any(str(k).startswith("$") for k in value):
            if set(value) != {"$eq"}:
                return {}
            value = value["$eq"]
        out[field] = value
    return out


def deadline_of(request: Request) -> float | None:
    """The monotonic deadline `maxTimeMS` sets, or None (0 or absent: no limit)."""
    import time

    value = request.body.get("maxTimeMS")
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    return time.monotonic() + float(value) / 1000.0
