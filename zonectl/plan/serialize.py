"""The versioned JSON form of a plan (`format_version: 1`): what `plan --save-plan` saves,
what `--format json` prints and what `apply --plan` loads back into op objects.

BSON values use canonical extended JSON, so NumberLong bounds of hashed keys, dates and
MinKey/MaxKey survive the round trip exactly. A field holding dataclasses (a removal's
ShardDrain and Blockers) is saved as objects of their fields and rebuilt from its type.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import types
import typing
from collections.abc import Mapping
from typing import Any

from bson import json_util
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.errors import ZonectlError
from zonectl.plan.capacity_doc import capacity_from_doc, capacity_to_doc
from zonectl.plan.kinds import OPS_BY_KIND
from zonectl.plan.ops import Impact, Op
from zonectl.plan.plan import FORMAT_VERSION, Plan, Unmanaged

# Dates decode timezone-aware (UTC), as the mongo layer reads them.
_OPTS = json_util.CANONICAL_JSON_OPTIONS.with_options(tz_aware=True, tzinfo=dt.UTC)


_INT32 = range(-(2**31), 2**31)


def _bson(value: Any) -> Any:
    """A JSON-ready structure in canonical extended JSON: what json_util writes, with the
    values of most op fields (names, bounds of MinKey, MaxKey, int32 and strings) written
    here directly, since a 10,000-collection plan holds 50,000 of them; anything else by
    json_util (tests/plan/test_serialize_bson.py compares the two)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is dict:
        doc = {}
        for k, v in value.items():
            if type(k) is not str:
                return _slow(value)
            doc[k] = _bson(v)
        return doc
    if kind is list or kind is tuple:
        return [_bson(v) for v in value]
    if kind is MinKey:
        return {"$minKey": 1}
    if kind is MaxKey:
        return {"$maxKey": 1}
    if kind is int and value in _INT32:
        return {"$numberInt": str(value)}
    return _slow(value)


def _slow(value: Any) -> Any:
    return json.loads(json_util.dumps(value, json_options=_OPTS))


def _plain(value: Any) -> Any:
    return dict(value) if isinstance(value, Mapping) else value


def _nested(value: Any) -> Any:
    """A dataclass (or a tuple of them) as JSON objects of its fields: numbers, strings and
    booleans as plain JSON, so readers of the plan need no extended JSON for them; mappings
    (chunk bounds) in canonical extended JSON."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _nested(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_nested(v) for v in value]
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return _bson(_plain(value))


_HINTS: dict[str, dict[str, Any]] = {}


def _hints(cls: type[Op]) -> dict[str, Any]:
    """Its fields' types, resolved once per kind."""
    if cls.kind not in _HINTS:
        _HINTS[cls.kind] = typing.get_type_hints(cls)
    return _HINTS[cls.kind]


def _holds_dataclass(hint: Any) -> bool:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return True
    return any(_holds_dataclass(arg) for arg in typing.get_args(hint))


def _decode(hint: Any, value: Any) -> Any:
    """`value` (JSON) as the type `hint` says: dataclasses field by field, tuples of them,
    optional ones; anything else from canonical extended JSON (lists as tuples)."""
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        names = {f.name for f in dataclasses.fields(hint) if f.init}
        unknown = set(value) - names
        if unknown:
            raise ValueError(f"{hint.__name__} has no field {sorted(unknown)[0]!r}")
        return hint(**{k: _decode(hints[k], v) for k, v in value.items()})
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return tuple(_decode(args[0], v) for v in value)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return None if value is None else _decode(rest[0], value)
    decoded = json_util.loads(json.dumps(value), json_options=_OPTS)
    return tuple(decoded) if isinstance(decoded, list) else decoded


def _arg(value: Any) -> Any:
    """An op field that holds no dataclass, in canonical extended JSON; `_bson(_plain(v))`
    without the Mapping check (an ABC isinstance) for the exact types _bson walks itself."""
    kind = type(value)
    if kind is str or kind is dict or kind is tuple or kind is int or value is None:
        return _bson(value)
    return _bson(_plain(value))


_LAYOUT: dict[type[Op], tuple[tuple[str, bool], ...]] = {}


def _layout(cls: type[Op]) -> tuple[tuple[str, bool], ...]:
    """Its fields but `impact`, each with whether its type holds a dataclass, once per kind
    (a 10,000-collection plan has 10,000 ops of one or two kinds)."""
    if cls not in _LAYOUT:
        hints = _hints(cls)
        _LAYOUT[cls] = tuple(
            (f.name, _holds_dataclass(hints[f.name]))
            for f in dataclasses.fields(cls)
            if f.name != "impact"
        )
    return _LAYOUT[cls]


_ATOMS = (str, int, float, bool, type(None))
_FIELD_NAMES: dict[type[Any], tuple[str, ...]] = {}


def _asdict(obj: Any) -> dict[str, Any]:
    """dataclasses.asdict(obj): its fields in order, without asdict's deep copy when every
    value is an atom (copying one gives the same object)."""
    cls = type(obj)
    if cls not in _FIELD_NAMES:
        _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(obj))
    doc = {name: getattr(obj, name) for name in _FIELD_NAMES[cls]}
    if all(type(v) in _ATOMS for v in doc.values()):
        return doc
    return dataclasses.asdict(obj)


def op_to_doc(op: Op) -> dict[str, Any]:
    doc: dict[str, Any] = {"kind": op.kind, "description": op.describe()}
    if op.namespace is not None:
        doc["namespace"] = op.namespace
    doc["destructive"] = op.destructive
    doc["args"] = {
        name: _nested(getattr(op, name)) if nested else _arg(getattr(op, name))
        for name, nested in _layout(type(op))
    }
    doc["database"] = op.database
    doc["command"] = _bson(op.command())
    impact = op.impact
    if impact is not None:
        doc["impact"] = _asdict(impact)
    return doc


def op_from_doc(doc: dict[str, Any]) -> Op:
    cls = OPS_BY_KIND.get(doc.get("kind", ""))
    if cls is None:
        raise ZonectlError(f"saved plan has an unknown op kind {doc.get('kind')!r}")
    names = {f.name for f in dataclasses.fields(cls)}
    hints = _hints(cls)
    args: dict[str, Any] = {}
    for name, value in doc.get("args", {}).items():
        if name not in names:
            raise ZonectlError(f"saved plan: op {cls.kind} has no field {name!r}")
        if _holds_dataclass(hints[name]):
            args[name] = _decode(hints[name], value)
            continue
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
            **({"primaries_to_move": s.primaries} if s.primaries else {}),
            **({"shards_to_add": s.shards_added} if s.shards_added else {}),
            **({"shards_to_remove": s.shards_removed} if s.shards_removed else {}),
            **({"drains_to_stop": s.drains_stopped} if s.drains_stopped else {}),
        },
        "ops": [op_to_doc(op) for op in plan.ops],
        "unmanaged": [_asdict(u) for u in plan.unmanaged],
        "warnings": list(plan.warnings),
        # Only when present, so saved plans without unsharded pins or patterns stay as they were.
        **({"notes": list(plan.notes)} if plan.notes else {}),
        **({"origins": dict(sorted(plan.origins.items()))} if plan.origins else {}),
        # Only when volumes were read (the plan moves data), so other plans stay as they were.
        **({"capacity": capacity_to_doc(plan.capacity)} if plan.capacity is not None else {}),
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
            capacity=capacity_from_doc(doc["capacity"]) if doc.get("capacity") else None,
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
