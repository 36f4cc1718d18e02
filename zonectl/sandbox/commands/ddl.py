"""Cluster DDL: enableSharding, shardCollection, movePrimary, listShards.

shardCollection validates the key, checks existing zone ranges and pre-splits an empty
collection at them (reference §1.8). addShard is in add_shard.py; removeShard and 8.3's
draining commands in shard_removal.py.
"""

from __future__ import annotations

from typing import Any

from zonectl.sandbox.catalog import zone_rules as rules
from zonectl.sandbox.catalog.cluster import DATABASES
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


@command("movePrimary", aliases=("moveprimary",), admin_only=True)
def move_primary(request: Request) -> dict[str, Any]:
    """Only the metadata change: the sandbox holds no unsharded data to copy. An unknown
    target is ShardNotFound; a draining target is accepted: no refusal of one was found in
    the movePrimary path (docs/sandbox-fidelity.md, "Shards leaving and joining")."""
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
