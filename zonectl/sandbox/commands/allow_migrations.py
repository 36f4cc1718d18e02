"""setAllowMigrations (mongos, 5.0+): `{setAllowMigrations: ns, allowMigrations: bool}`
sets `permitMigrations: false` on the collection's config.collections entry, or removes
the field; the balancer then leaves the collection alone and the donor refuses manual
moves. Migrations of it already running are aborted, as the shards' refresh does.

Verified against mongo:jstests/sharding/move_chunk_permitMigrations.js (moveChunk fails
with ConflictingOperationInProgress after it; `permitMigrations` false, then absent) and
migration_source_manager.cpp / shard_filtering_metadata_refresh.cpp (an ongoing migration
is aborted when migrations become disallowed: `MigrationSourceManager::abort` kills its
operation, so the moveChunk answers Interrupted). The reply to an unsharded namespace is
inferred (NamespaceNotSharded, as the other mongos collection commands).
"""

from __future__ import annotations

from typing import Any

from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.commands import move_rules
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError


@command("setAllowMigrations", admin_only=True)
def set_allow_migrations(request: Request) -> dict[str, Any]:
    ns = move_rules.typed_namespace(request)
    allow = request.body.get("allowMigrations")
    if allow is None:
        raise CommandError.of(
            "IDLFailedToParse",
            "BSON field 'setAllowMigrations.allowMigrations' is missing but a required field",
        )
    if not isinstance(allow, bool):
        raise CommandError.of(
            "TypeMismatch",
            "BSON field 'setAllowMigrations.allowMigrations' is the wrong type "
            f"'{type_name(allow)}', expected type 'bool'",
        )
    sandbox = request.sandbox
    cluster = sandbox.cluster
    move_rules.routing_store(cluster, ns)  # unknown database / not sharded
    cluster.set_collection_field(ns, "permitMigrations", None if allow else False)
    if not allow:
        sandbox.balancer.abort(ns, CommandError.of("Interrupted", "operation was interrupted"))
    return {}
