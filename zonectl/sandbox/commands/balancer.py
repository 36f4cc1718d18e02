"""Balancer control commands: balancerStart/Stop/Status, balancerCollectionStatus,
configureCollectionBalancing (reference §3.1-§3.4).

Start and stop write `config.settings` first and reload the settings right after, so a
reload error (a malformed activeWindow) is returned although the write happened
(`BalancerConfiguration::setBalancerMode`). Stop then waits for the current round.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.model.bsontypes import type_name
from zonectl.sandbox.balancer import view
from zonectl.sandbox.balancer.policy import compliance
from zonectl.sandbox.catalog.cluster import SETTINGS
from zonectl.sandbox.commands import move_rules
from zonectl.sandbox.commands.registry import IGNORED_FIELDS, Request, command
from zonectl.sandbox.errors import CommandError, max_time_expired
from zonectl.sandbox.state import Sandbox

MB = 1024 * 1024


def _upsert_setting(sandbox: Sandbox, _id: str, fields: Mapping[str, Any]) -> None:
    """`updateConfigDocument(..., {$set: fields}, upsert: true)` on config.settings."""
    coll = sandbox.cluster.coll(SETTINGS)
    doc = dict(coll.get(_id) or {"_id": _id})
    doc.update(fields)
    coll.put(doc)


def _set_mode(sandbox: Sandbox, mode: str) -> None:
    """_configsvrBalancerStart/Stop: mode, then (7.0+) automerge, then the actionlog."""
    _upsert_setting(sandbox, "balancer", {"stopped": mode == "off", "mode": mode})
    sandbox.balancer.reload_settings()  # raises the reload error after the write
    if sandbox.version.balancer_toggles_automerge:
        _upsert_setting(sandbox, "automerge", {"enabled": mode == "full"})
        sandbox.balancer.reload_settings()
        what = "balancer.start" if mode == "full" else "balancer.stop"
        sandbox.cluster.log_action(what, {})


@command("balancerStart", admin_only=True, supports_write_concern=False)
def balancer_start(request: Request) -> dict[str, Any]:
    _set_mode(request.sandbox, "full")
    return {}


@command("balancerStop", admin_only=True, supports_write_concern=False)
def balancer_stop(request: Request) -> dict[str, Any]:
    deadline = move_rules.deadline_of(request)
    _set_mode(request.sandbox, "off")
    # joinCurrentRound: "off" is stored already; a maxTimeMS expiry leaves it stored.
    if not request.sandbox.balancer.join_current_round(deadline):
        raise max_time_expired()
    return {}


@command("balancerStatus", admin_only=True, supports_write_concern=False)
def balancer_status(request: Request) -> dict[str, Any]:
    return request.sandbox.balancer.report()


def _collection_doc(sandbox: Sandbox, ns: str, unknown_db_not_found: bool) -> dict[str, Any]:
    cluster = sandbox.cluster
    if not cluster.is_sharded(ns):
        db = ns.split(".", 1)[0]
        if unknown_db_not_found and cluster.database_doc(db) is None:
            raise CommandError.of("NamespaceNotFound", f"database {db} not found")
        if unknown_db_not_found:
            raise CommandError.of("NamespaceNotSharded", f"Collection {ns} is not sharded.")
        # 6.0+ config server: one message for unsharded and unknown (reference §3.3).
        raise CommandError.of("NamespaceNotSharded", "Collection unsharded or undefined")
    doc = cluster.collection_doc(ns)
    assert doc is not None
    return doc


@command("balancerCollectionStatus", admin_only=True, supports_write_concern=False)
def balancer_collection_status(request: Request) -> dict[str, Any]:
    sandbox = request.sandbox
    ns = move_rules.typed_namespace(request)
    version = sandbox.version
    doc = _collection_doc(sandbox, ns, unknown_db_not_found=not version.has_defragmentation)
    balancer = sandbox.balancer
    settings = balancer.current_settings()
    reply: dict[str, Any] = {}
    if version.has_configure_collection_balancing:
        reply["chunkSize"] = view.max_chunk_size_bytes(sandbox.cluster, ns, settings) / MB
    violation: str | None
    if version.has_defragmentation and doc.get("defragmentCollection"):
        violation = "defragmentingChunks"
    else:
        coll = view.collection_view(sandbox.cluster, ns, settings)
        assert coll is not None
        shards = view.shard_views(sandbox.cluster)
        violation = compliance(coll, shards, balancer.params(settings))
    reply["balancerCompliant"] = violation is None
    if violation is not None:
        reply["firstComplianceViolation"] = violation
    return reply


def _check_fields(request: Request, allowed: set[str]) -> None:
    """IDL strict parsing: an unknown field is IDLUnknownField (40415)."""
    for name in request.body:
        if name == request.name or name in IGNORED_FIELDS or name == "writeConcern":
            continue
        if name not in allowed:
            raise CommandError.of(
                "IDLUnknownField", f"BSON field '{request.name}.{name}' is an unknown field."
            )


def _typed(request: Request, name: str, expected: str, ok: bool) -> None:
    if not ok:
        value = request.body[name]
        raise CommandError.of(
            "TypeMismatch",
            f"BSON field '{request.name}.{name}' is the wrong type "
            f"'{type_name(value)}', expected type '{expected}'",
        )


@command(
    "configureCollectionBalancing",
    admin_only=True,
    exists_in=lambda version: version.has_configure_collection_balancing,
)
def configure_collection_balancing(request: Request) -> dict[str, Any]:
    sandbox = request.sandbox
    version = sandbox.version
    allowed = {"chunkSize", "defragmentCollection"}
    allowed.add("enableAutoMerger" if version.balancer_toggles_automerge else "enableAutoSplitter")
    _check_fields(request, allowed)
    ns = move_rules.typed_namespace(request)
    body = request.body
    updates: dict[str, Any] = {}
    if "chunkSize" in body:
        size = body["chunkSize"]
        _typed(request, "chunkSize", "long", isinstance(size, int) and not isinstance(size, bool))
        if size != 0 and not 1 <= size <= 1024:
            raise CommandError.of("InvalidOptions", f"Chunk size '{size}' out of range [1MB, 1GB]")
        updates["maxChunkSizeBytes"] = size * MB if size else None  # 0 removes the value
    for name, field, invert in (
        ("defragmentCollection", "defragmentCollection", False),
        ("enableAutoSplitter", "noAutoSplit", True),
        ("enableAutoMerger", "enableAutoMerge", False),
    ):
        if name in body:
            _typed(request, name, "bool", isinstance(body[name], bool))
            updates[field] = (not body[name]) if invert else body[name]
    _collection_doc(sandbox, ns, unknown_db_not_found=False)
    for field, value in updates.items():
        sandbox.cluster.set_collection_field(ns, field, value)
    return {}
