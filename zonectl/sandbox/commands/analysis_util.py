"""Checks analyzeShardKey and configureQueryAnalyzer share, as MongoDB's
analyze_shard_key_util.cpp holds them for both: the request's fields (IDL), the namespace
(validateNamespace, on the router) and the collection (validateCollectionOptions)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from zonectl.sandbox.catalog import unsharded
from zonectl.sandbox.errors import CommandError

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox

# Generic arguments every command accepts besides its own fields.
GENERIC = frozenset({"$db", "lsid", "$clusterTime", "$readPreference", "readConcern", "comment",
                     "maxTimeMS", "apiVersion", "apiStrict", "apiDeprecationErrors"})  # fmt: skip


def reject_unknown_fields(body: Mapping[str, Any], name: str, fields: Collection[str]) -> None:
    for field in body:
        if field not in fields and field not in GENERIC:
            raise CommandError.of(
                "IDLUnknownField", f"BSON field '{name}.{field}' is an unknown field."
            )


def validate_namespace(ns: str) -> None:
    db, _, coll = ns.partition(".")
    if db in ("admin", "config", "local"):
        raise CommandError.of("IllegalOperation", "Cannot run against an internal collection")
    if coll.startswith("system."):
        raise CommandError.of("IllegalOperation", "Cannot run against a system collection")


def validate_collection(sandbox: Sandbox, ns: str) -> None:
    kind = unsharded.kind_of(sandbox.cluster, ns)
    if kind == "timeseries":
        raise CommandError.of(
            "IllegalOperation", "Operation not supported for a timeseries collection"
        )
    if kind == "view":
        raise CommandError(166, "Operation not supported for a view", "CommandNotSupportedOnView")
    if not sandbox.cluster.is_sharded(ns) and sandbox.catalog.get(ns) is None:
        raise CommandError.of("NamespaceNotFound", "The namespace does not exist")
