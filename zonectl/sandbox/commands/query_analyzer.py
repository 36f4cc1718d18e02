"""configureQueryAnalyzer (7.0+), the `$listSampledQueries` stage, and the sampler's
`$currentOp` entries.

configureQueryAnalyzer as mongo:src/mongo/db/s/configure_query_analyzer_cmd.cpp runs it:
admin only, no writeConcern, the `configureQueryAnalyzer` action on the exact namespace
("Unauthorized"); validateNamespace and validateCollectionOptions as analyzeShardKey
(analyze.py); mode "off" refuses samplesPerSecond, "full" needs it in (0, 50]
(kMaxSamplesPerSecond), all InvalidOptions. "full" upserts config.queryAnalyzers
{_id: collection UUID, ns, mode, samplesPerSecond, startTime}, keeping startTime unless the
mode or the UUID changed, and unsets stopTime; "off" sets mode and stopTime on an active
document only. The reply is {newConfiguration, oldConfiguration?}, the old one only when a
document of the same collection UUID was there.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bson import Int64
from bson.binary import Binary, UuidRepresentation

from zonectl.sandbox.auth.roles import is_allowed
from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.commands.analysis_util import (
    reject_unknown_fields,
    validate_collection,
    validate_namespace,
)
from zonectl.sandbox.commands.move_rules import typed_namespace
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.sampling.sampler import QUERY_ANALYZERS, SAMPLED_QUERIES

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox

MAX_SAMPLES_PER_SECOND = 50  # kMaxSamplesPerSecond
LIST_SAMPLED_QUERIES = "$listSampledQueries"
_FIELDS = {"configureQueryAnalyzer", "mode", "samplesPerSecond"}


def supported(sandbox: Sandbox) -> bool:
    return sandbox.version.version_array[0] >= 7


def _authorize(request: Request) -> bool:
    value = request.body.get("configureQueryAnalyzer")
    ns = value if isinstance(value, str) else ""
    if not is_allowed(request.session.roles, ns, "configureQueryAnalyzer"):
        raise CommandError.of("Unauthorized", "Unauthorized")
    return True


def collection_uuid(sandbox: Sandbox, ns: str) -> Binary:
    """The collection's UUID: config.collections' for a sharded one; an unsharded one has
    none in the sandbox, so one derived from its name stands in (stable across restarts)."""
    doc = sandbox.cluster.collection_doc(ns)
    found = doc.get("uuid") if doc is not None else None
    if isinstance(found, Binary):
        return found
    return Binary.from_uuid(uuid.uuid5(uuid.NAMESPACE_URL, ns), UuidRepresentation.STANDARD)


@command(
    "configureQueryAnalyzer",
    admin_only=True,
    supports_write_concern=False,
    authorize=_authorize,
    exists_in=lambda version: version.version_array[0] >= 7,
)
def configure_query_analyzer(request: Request) -> dict[str, Any]:
    body = request.body
    reject_unknown_fields(body, "configureQueryAnalyzer", _FIELDS)
    ns = typed_namespace(request)
    mode = _mode(body)
    rate = _rate(body)
    # typedRun's order: the namespace, the options, then the collection.
    validate_namespace(ns)
    if mode == "off" and rate is not None:
        raise CommandError.of(
            "InvalidOptions", "Cannot specify 'samplesPerSecond' when 'mode' is \"off\""
        )
    if mode == "full":
        if rate is None:
            raise CommandError.of(
                "InvalidOptions", "'samplesPerSecond' must be specified when 'mode' is not \"off\""
            )
        if rate <= 0:
            raise CommandError.of("InvalidOptions", "'samplesPerSecond' must be greater than 0")
        if rate > MAX_SAMPLES_PER_SECOND:
            raise CommandError.of(
                "InvalidOptions",
                f"'samplesPerSecond' must be less than or equal to {MAX_SAMPLES_PER_SECOND}",
            )
    sandbox = request.sandbox
    validate_collection(sandbox, ns)
    coll_uuid = collection_uuid(sandbox, ns)
    store = sandbox.cluster.coll(QUERY_ANALYZERS)
    now = sandbox.cluster.now()
    existing = next((d for d in store if d.get("ns") == ns), None)
    new: dict[str, Any] = {"mode": mode}
    if rate is not None:
        new["samplesPerSecond"] = rate
    reply: dict[str, Any] = {"newConfiguration": new}
    if mode == "off":
        if existing is not None and existing.get("mode") != "off":
            reply.update(_old(existing, coll_uuid))
            store.put({**existing, "mode": "off", "stopTime": now})
        return reply
    if existing is not None:
        reply.update(_old(existing, coll_uuid))
        if existing["_id"] != coll_uuid:
            store.remove(existing["_id"])
    same = existing is not None and existing.get("mode") == mode and existing["_id"] == coll_uuid
    start = existing["startTime"] if same and existing is not None else now
    store.put(
        {"_id": coll_uuid, "ns": ns, "mode": mode, "samplesPerSecond": rate, "startTime": start}
    )
    return reply


def _old(existing: Mapping[str, Any], coll_uuid: Binary) -> dict[str, Any]:
    if existing["_id"] != coll_uuid:
        return {}
    old: dict[str, Any] = {"mode": existing.get("mode")}
    if "samplesPerSecond" in existing:
        old["samplesPerSecond"] = existing["samplesPerSecond"]
    return {"oldConfiguration": old}


def _mode(body: Mapping[str, Any]) -> str:
    if "mode" not in body:
        raise CommandError.of(
            "IDLFailedToParse", "BSON field 'configureQueryAnalyzer.mode' is missing but a "
            "required field",
        )  # fmt: skip
    mode = body["mode"]
    if not isinstance(mode, str):
        raise CommandError.of(
            "TypeMismatch",
            f"BSON field 'configureQueryAnalyzer.mode' is the wrong type '{type_name(mode)}', "
            "expected type 'string'",
        )
    if mode not in ("full", "off"):
        raise CommandError.of(
            "BadValue",
            f"Enumeration value '{mode}' for field 'configureQueryAnalyzer.mode' is not a "
            "valid value.",
        )
    return mode


def _rate(body: Mapping[str, Any]) -> float | None:
    value = body.get("samplesPerSecond")
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise CommandError.of(
            "TypeMismatch",
            "BSON field 'configureQueryAnalyzer.samplesPerSecond' is the wrong type "
            f"'{type_name(value)}', expected types '[long, int, decimal, double]'",
        )
    return float(value)


def list_sampled_queries(request: Request, spec: Any) -> list[dict[str, Any]]:
    """`$listSampledQueries: {namespace?}`: the stored samples (admin database, 7.0+).
    Guess: the documents as config.sampledQueries holds them."""
    if not supported(request.sandbox):
        raise CommandError.assertion(
            40324, f"Unrecognized pipeline stage name: '{LIST_SAMPLED_QUERIES}'"
        )
    if request.db != "admin":
        raise CommandError.of(
            "InvalidNamespace", "$listSampledQueries must be run against the admin database"
        )
    if not isinstance(spec, Mapping):
        raise CommandError.of(
            "TypeMismatch", "BSON field '$listSampledQueries' is the wrong type, expected object"
        )
    ns = spec.get("namespace")
    if ns is not None and not isinstance(ns, str):
        raise CommandError.of(
            "TypeMismatch",
            "BSON field '$listSampledQueries.namespace' is the wrong type "
            f"'{type_name(ns)}', expected type 'string'",
        )
    stored = request.sandbox.catalog.get(SAMPLED_QUERIES)
    docs = list(stored) if stored is not None else []
    return [dict(d) for d in docs if ns is None or d.get("ns") == ns]


def sampler_ops(request: Request, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The mongos sampler's `$currentOp` entries (`localOps: true`), one per sampled
    collection (CollectionSampleCountersCurrentOp in analyze_shard_key_common.idl); the
    sampler is an internal client, so only with `allUsers: true` (as current_op.py)."""
    if not options.get("allUsers"):
        return []
    return [
        {
            "desc": "query analyzer",
            "ns": entry.ns,
            "collUuid": entry.uuid,
            "samplesPerSecond": entry.rate,
            "startTime": entry.start,
            "sampledReadsCount": Int64(entry.reads),
            "sampledWritesCount": Int64(entry.writes),
        }
        for entry in request.sandbox.sampler.active()
    ]
