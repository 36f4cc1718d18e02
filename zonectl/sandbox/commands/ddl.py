"""Cluster DDL: enableSharding, shardCollection, addShard, removeShard, listShards.

shardCollection validates the key, checks existing zone ranges and pre-splits an empty
collection at them (reference §1.8); removeShard drains through the balancer (draining
chunks are moved by `Balancer`) and refuses to strand a zone that still has ranges (§1.3).
"""

from __future__ import annotations

from typing import Any

from zonectl.sandbox.catalog import zone_rules as rules
from zonectl.sandbox.catalog.cluster import DATABASES, SHARDS
from zonectl.sandbox.catalog.shard_collection import shard_collection as do_shard_collection
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError


@command("enableSharding", aliases=("enablesharding",), admin_only=True)
def enable_sharding(request: Request) -> dict[str, Any]:
    db = request.arg
    if not isinstance(db, str):
        raise rules.wrong_type(request.name, "string", db)
    if not db or "." in db or not rules.is_valid_namespace(f"{db}.x"):
        raise CommandError.of("InvalidNamespace", f"invalid db name specified: {db}")
    if db in ("admin", "local", "config"):
        # ConfigsvrCreateDatabase refuses the internal databases (inferred wording).
        raise CommandError.of("InvalidOptions", f"Cannot shard or create database '{db}'")
    cluster = request.sandbox.cluster
    primary = request.body.get("primaryShard")
    if primary is not None and cluster.shard_doc(str(primary)) is None:
        raise CommandError.of("ShardNotFound", f"Shard {primary} not found")
    doc = cluster.ensure_database(db, primary=str(primary) if primary else None)
    if "partitioned" in doc and not doc["partitioned"]:
        cluster.coll(DATABASES).put({**doc, "partitioned": True})
    return {}


@command("shardCollection", aliases=("shardcollection",), admin_only=True)
def shard_collection(request: Request) -> dict[str, Any]:
    return do_shard_collection(request.sandbox.cluster, request.body, request.name)


@command("addShard", aliases=("addshard",), admin_only=True)
def add_shard(request: Request) -> dict[str, Any]:
    """The sandbox cannot reach the host: it records the shard as a real addShard would
    after a successful handshake (name defaults to the replica-set name)."""
    host = request.arg
    if not isinstance(host, str) or not host:
        raise rules.wrong_type(request.name, "string", host)
    name = request.body.get("name")
    if name is not None and not isinstance(name, str):
        raise rules.wrong_type("name", "string", name)
    if name is None:
        name = host.split("/", 1)[0] if "/" in host else _next_shard_name(request)
    cluster = request.sandbox.cluster
    existing = cluster.shard_doc(name)
    if existing is not None:
        if existing.get("host") == host:
            return {"shardAdded": name}  # an identical re-add is a no-op
        raise CommandError.of(
            "IllegalOperation", f"A shard named {name} already exists with host {existing['host']}"
        )
    cluster.add_shard(name, host)
    cluster.log_change("addShard", "", {"name": name, "host": host})
    return {"shardAdded": name}


def _next_shard_name(request: Request) -> str:
    names = set(request.sandbox.cluster.shard_names())
    i = 0
    while f"shard{i:04d}" in names:
        i += 1
    return f"shard{i:04d}"


@command("removeShard", aliases=("removeshard",), admin_only=True)
def remove_shard(request: Request) -> dict[str, Any]:
    name = request.arg
    if not isinstance(name, str):
        raise rules.wrong_type(request.name, "string", name)
    cluster = request.sandbox.cluster
    doc = cluster.shard_doc(name)
    if doc is None:
        raise CommandError.of("ShardNotFound", f"Shard {name} not found")
    if len(cluster.shard_names()) == 1:
        raise CommandError.of(
            "IllegalOperation", "Operation not allowed because it would remove the last shard"
        )
    for zone in doc.get("tags", []):
        # sharding_catalog_manager_shard_operations.cpp: the only shard of a zone that still
        # has ranges cannot be drained (reference §1.3; message verbatim, grammar included).
        if cluster.shards_in_zone(zone) == [name] and cluster.zone_has_ranges(zone):
            raise CommandError.of(
                "ZoneStillInUse",
                f"Operation not allowed because it would remove the only shard for zone {zone} "
                "which has a chunk range is associated with it",
            )
    dbs = sorted(d["_id"] for d in cluster.coll(DATABASES) if d.get("primary") == name)
    if not doc.get("draining"):
        cluster.set_shard_field(name, "draining", True)
        cluster.log_change("removeShard.start", "", {"shard": name})
        return {
            "msg": "draining started successfully",
            "state": "started",
            "shard": name,
            "note": "you need to call moveCollection for unsplittable collections and "
            "movePrimary for databases whose primary shard is the draining shard",
            "dbsToMove": dbs,
        }
    chunks = jumbo = 0
    for store in cluster.stores():
        for i, shard in enumerate(store.shards()):
            if shard == name:
                chunks += 1
                jumbo += int(store.jumbo_at(i))
    if chunks or dbs:
        return {
            "msg": "draining ongoing",
            "state": "ongoing",
            "remaining": {"chunks": chunks, "dbs": len(dbs), "jumboChunks": jumbo},
            "note": "you need to call moveCollection for unsplittable collections and "
            "movePrimary for databases whose primary shard is the draining shard",
            "dbsToMove": dbs,
        }
    cluster.coll(SHARDS).remove(name)
    cluster.log_change("removeShard", "", {"shard": name})
    return {"msg": "removeshard completed successfully", "state": "completed", "shard": name}


@command("movePrimary", aliases=("moveprimary",), admin_only=True)
def move_primary(request: Request) -> dict[str, Any]:
    """Only the metadata change: the sandbox holds no unsharded data to copy."""
    db, to = request.arg, request.body.get("to")
    if not isinstance(db, str):
        raise rules.wrong_type(request.name, "string", db)
    if not isinstance(to, str):
        raise CommandError.of("InvalidOptions", "you have to specify where you want to move it")
    cluster = request.sandbox.cluster
    doc = cluster.database_doc(db)
    if doc is None:
        raise CommandError.of("NamespaceNotFound", f"Database {db} not found")
    if cluster.shard_doc(to) is None:
        raise CommandError.of("ShardNotFound", f"Shard {to} not found")
    if doc.get("primary") != to:
        cluster.coll(DATABASES).put({**doc, "primary": to})
    return {}


@command("listShards", aliases=("listshards",), admin_only=True)
def list_shards(request: Request) -> dict[str, Any]:
    return {"shards": request.sandbox.cluster.shard_docs()}
