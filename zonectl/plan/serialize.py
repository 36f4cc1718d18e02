"""The versioned JSON form of a plan (`format_version: 1`): what `plan --save-plan` saves,
what `--format json` prints and what `apply --plan` loads back into op objects.

BSON values use canonical extended JSON, so NumberLong bounds of hashed keys, dates and
MinKey/MaxKey survive the round trip exactly.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

from bson import json_util

from zonectl.errors import ZonectlError
from zonectl.plan.kinds import OPS_BY_KIND
from zonectl.plan.ops import Impact, Op
from zonectl.plan.plan import FORMAT_VERSION, Plan, Unmanaged

# Dates decode timezone-aware (UTC), as the mongo layer reads them.
_OPTS = json_util.CANONICAL_JSON_OPTIONS.with_options(tz_aware=True, tzinfo=dt.UTC)


def _bson(value: Any) -> Any:
    """A JSON-ready structure in canonical extended JSON."""
    return json.loads(json_util.dumps(value, json_options=_OPTS))


def _plain(value: Any) -> Any:
    return dict(value) if isinstance(value, Mapping) else value


def op_to_doc(op: Op) -> dict[str, Any]:
    doc: dict[str, Any] = {"kind": op.kind, "description": op.describe()}
    if op.namespace is not None:
        doc["namespace"] = op.namespace
    doc["destructive"] = op.destructive
    args = {
        f.name: _bson(_plain(getattr(op, f.name)))
        for f in dataclasses.fields(op)
        if f.name != "impact"
    }
    doc["args"] = args
    doc["database"] = op.database
    doc["command"] = _bson(op.command())
    impact = op.impact
    if impact is not None:
        doc["impact"] = dataclasses.asdict(impact)
    return doc


def op_from_doc(doc: dict[str, Any]) -> Op:
    cls = OPS_BY_KIND.get(doc.get("kind", ""))
    if cls is None:
        raise ZonectlError(f"saved plan has an unknown op kind {doc.get('kind')!r}")
    names = {f.name for f in dataclasses.fields(cls)}
    args: dict[str, Any] = {}
    for name, value in doc.get("args", {}).items():
        if name not in names:
            raise ZonectlError(f"saved plan: op {cls.kind} has no field {name!r}")
        decoded = json_util.loads(json.dumps(value), json_options=_OPTS)
        args[name] = tuple(decoded) if isinstance(decoded, list) else decoded
    if "impact" in doc and "impact" in names:
        args["impact"] = Impact(**doc["impact"])
    return cls(**args)


def plan_to_doc(plan: Plan) -> dict[str, Any]:
    s = plan.summary()
    return {
        "format_version": FORMAT_VERSION,
        "plan_id": plan.plan_id,
        "at": _iso(plan.at),
        "valid_until": _iso(plan.valid_until) if plan.valid_until else None,
        "policy_digest": plan.policy_digest,
        "fingerprint": plan.fingerprint,
        "sources": list(plan.sources),
        "cluster_version": plan.cluster_version,
        "namespaces": list(plan.namespaces),
        "summary": {
            "to_add": s.to_add,
            "to_remove": s.to_remove,
            "shards_rezoned": s.shards_rezoned,
            "settings": s.settings,
            "migrating_chunks": s.chunks,
            "migrating_bytes": s.bytes,
            "impact_known": s.impact_known,
            **({"collections_to_move": s.collections} if s.collections else {}),
        },
        "ops": [op_to_doc(op) for op in plan.ops],
        "unmanaged": [dataclasses.asdict(u) for u in plan.unmanaged],
        "warnings": list(plan.warnings),
        # Only when present, so saved plans without unsharded pins or patterns stay as they were.
        **({"notes": list(plan.notes)} if plan.notes else {}),
        **({"origins": dict(sorted(plan.origins.items()))} if plan.origins else {}),
    }


def dump_plan(plan: Plan) -> str:
    """The plan as a JSON text with stable key order, ending in a newline."""
    return json.dumps(plan_to_doc(plan), indent=2, ensure_ascii=False) + "\n"


def load_plan(text: str) -> Plan:
    """Parse a saved plan; refuses another format_version rather than guessing."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ZonectlError(f"saved plan is not valid JSON: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format_version") != FORMAT_VERSION:
        version = doc.get("format_version") if isinstance(doc, dict) else None
        raise ZonectlError(
            f"saved plan has format_version {version!r}; this zonectl reads {FORMAT_VERSION}"
        )
    try:
        return Plan(
            ops=tuple(op_from_doc(d) for d in doc["ops"]),
            at=dt.datetime.fromisoformat(doc["at"]),
            policy_digest=doc["policy_digest"],
            fingerprint=doc["fingerprint"],
            sources=tuple(doc.get("sources", ())),
            cluster_version=doc.get("cluster_version", ""),
            unmanaged=tuple(Unmanaged(**u) for u in doc.get("unmanaged", ())),
            warnings=tuple(doc.get("warnings", ())),
            namespaces=tuple(doc.get("namespaces", ())),
            notes=tuple(doc.get("notes", ())),
            origins=dict(doc.get("origins", {})),
            valid_until=(
                dt.datetime.fromisoformat(doc["valid_until"]) if doc.get("valid_until") else None
            ),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ZonectlError(f"saved plan is malformed: {exc!r}") from exc


def _iso(value: dt.datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
