"""Sorting and projection of result documents (find's `sort` and `projection`).

Sort keys follow MongoDB: a missing field sorts as null; an array sorts by its smallest
element ascending and its largest descending (mongo:src/mongo/db/exec/sort_key_generator.cpp).
Projections are all-inclusion or all-exclusion, `_id` included unless excluded
(projection_parser: mixing is error 31253/31254).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bson import Binary, Int64, MaxKey, MinKey, ObjectId, Timestamp

from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import encode
from zonectl.sandbox.query.paths import MISSING, lookup

Document = dict[str, Any]


def validate_sort(spec: Any) -> list[tuple[str, int]]:
    if not isinstance(spec, Mapping):
        raise CommandError.of("TypeMismatch", "Expected field sort to be of type object")
    out = []
    for field, direction in spec.items():
        if direction not in (1, -1) or isinstance(direction, bool):
            raise CommandError.of("BadValue", "$sort key ordering must be 1 (for ascending) or -1")
        out.append((field, int(direction)))
    return out


def _key(doc: Mapping[str, Any], field: str, direction: int) -> Any:
    values: list[Any] = []
    for v in lookup(doc, field):
        if v is MISSING:
            values.append(None)
        elif isinstance(v, list):
            values.extend(v if v else [None])
        else:
            values.append(v)
    keys = [encode(v) for v in values] or [encode(None)]
    return min(keys) if direction == 1 else max(keys)


def sort_documents(docs: Iterable[Any], spec: list[tuple[str, int]]) -> list[Any]:
    result = list(docs)
    for field, direction in reversed(spec):  # stable sorts, least significant key first

        def key(doc: Any, f: str = field, r: int = direction) -> Any:
            return _key(doc, f, r)

        result.sort(key=key, reverse=direction == -1)
    return result


_NOT_MAPPINGS = frozenset({int, float, bool, str})  # isinstance(_, Mapping) is False


def validate_projection(spec: Any) -> tuple[bool, dict[str, bool]]:
    """(inclusion?, field -> include) with `_id` handled as MongoDB does."""
    if not (type(spec) is dict or isinstance(spec, Mapping)):
        raise CommandError.of("TypeMismatch", "Expected field projection to be of type object")
    fields: dict[str, bool] = {}
    for field, value in spec.items():
        if type(value) not in _NOT_MAPPINGS and isinstance(value, Mapping):
            raise CommandError.of(
                "BadValue", f"projection operators are not supported by the sandbox: {field}"
            )
        fields[field] = value not in (0, False)
    inclusion = any(v for k, v in fields.items() if k != "_id")
    for field, include in fields.items():
        if field == "_id":
            continue
        if inclusion and not include:
            raise CommandError.assertion(
                31254, f"Cannot do exclusion on field {field} in inclusion projection"
            )
    if set(fields) == {"_id"}:
        inclusion = fields["_id"]  # {_id: 1} keeps only _id; {_id: 0} drops only _id
    return inclusion, fields


def project(doc: Mapping[str, Any], inclusion: bool, fields: dict[str, bool]) -> Document:
    return projector(inclusion, fields)(doc)


def projector(inclusion: bool, fields: dict[str, bool]) -> Callable[[Mapping[str, Any]], Document]:
    """`project` with this projection, its paths parsed once for every document."""
    if not inclusion:
        return lambda doc: _excluded(doc, fields)
    # Fields come out in the document's order, not the projection's, as MongoDB's
    # inclusion projection returns them ({b: 1, a: 1} on {_id, a, b} gives {_id, a, b}).
    paths: dict[str, list[list[str]]] = {}
    for field, include in fields.items():
        if include and field != "_id":
            parts = field.split(".")
            paths.setdefault(parts[0], []).append(parts)
    keep_id = fields.get("_id", True)
    if all(len(parts) == 1 for listed in paths.values() for parts in listed):
        # Top-level fields only: each one kept whole (what _copy_path does for one part).
        wanted = {*paths, "_id"} if keep_id else set(paths)
        return lambda doc: {
            name: doc[name] if name == "_id" else _copied(doc[name])
            for name in doc
            if name in wanted
        }

    def one(doc: Mapping[str, Any]) -> Document:
        out: Document = {}
        for name in doc:
            if name == "_id":
                if keep_id:
                    out["_id"] = doc["_id"]
                continue
            for parts in paths.get(name, ()):
                _copy_path(doc, out, parts)
        return out

    return one


def _excluded(doc: Mapping[str, Any], fields: dict[str, bool]) -> Document:
    result: Document = copy.deepcopy(dict(doc))
    for field, include in fields.items():
        if not include:
            _drop_path(result, field.split("."))
    return result


# Values with no state to share: kept, not copied (deepcopy reconstructs MinKey, Binary,
# ObjectId... one by one, the bulk of projecting a million chunk bounds).
_IMMUTABLE = frozenset(
    {str, int, float, bool, type(None), MinKey, MaxKey, ObjectId, Int64, Binary, Timestamp}
)


def _copied(value: Any) -> Any:
    """A deep copy of a decoded value (documents and arrays copied, immutables shared)."""
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}
    if kind is list:
        return [_copied(v) for v in value]
    return copy.deepcopy(value)


def _copy_path(src: Any, dst: Document, parts: list[str]) -> None:
    head, rest = parts[0], parts[1:]
    if not isinstance(src, Mapping) or head not in src:
        return
    value = src[head]
    if not rest:
        dst[head] = _copied(value)
    elif isinstance(value, Mapping):
        sub = dst.setdefault(head, {})
        _copy_path(value, sub, rest)
    elif isinstance(value, list):
        items = dst.setdefault(head, [])
        for item in value:
            if isinstance(item, Mapping):
                sub_doc: Document = {}
                _copy_path(item, sub_doc, rest)
                items.append(sub_doc)


def _drop_path(doc: Any, parts: list[str]) -> None:
    if isinstance(doc, list):
        for item in doc:
            _drop_path(item, parts)
        return
    if not isinstance(doc, dict) or parts[0] not in doc:
        return
    if len(parts) == 1:
        del doc[parts[0]]
    else:
        _drop_path(doc[parts[0]], parts[1:])
