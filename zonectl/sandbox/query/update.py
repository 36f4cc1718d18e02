"""Apply an update document (operators or a replacement) to a document, as mongod does.

Messages and codes from mongo:src/mongo/db/update/*.cpp (update_driver, modifier nodes):
unknown modifiers FailedToParse (9), conflicting paths ConflictingUpdateOperators (40),
`_id` changes ImmutableField (66), `$inc` on a non-number TypeMismatch (14), a path through a
scalar PathNotViable (28).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from bson import ObjectId

from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import compare, equal
from zonectl.sandbox.query.matcher import field_matches, is_operator_doc, matches
from zonectl.sandbox.query.paths import MISSING, get_first
from zonectl.sandbox.query.types import type_name

Document = dict[str, Any]
OPERATORS = (
    "$set", "$unset", "$inc", "$mul", "$min", "$max", "$addToSet", "$pull", "$push",
    "$setOnInsert", "$currentDate", "$rename",
)  # fmt: skip


def is_operator_update(update: Mapping[str, Any]) -> bool:
    if isinstance(update, list):
        raise CommandError.of(
            "FailedToParse", "pipeline-style updates are not supported by the sandbox"
        )
    ops = [k for k in update if k.startswith("$")]
    if ops and len(ops) != len(update):
        bad = next(k for k in update if not k.startswith("$"))
        raise _unknown_modifier(bad)
    return bool(ops)


def _unknown_modifier(name: str) -> CommandError:
    return CommandError.of(
        "FailedToParse",
        f"Unknown modifier: {name}. Expected a valid update modifier or pipeline-style update "
        "specified as an array",
    )


def apply_update(
    doc: Document, update: Mapping[str, Any], *, inserting: bool = False, now: Any = None
) -> Document:
    """The updated copy of `doc`; `inserting` enables $setOnInsert (an upsert's insert)."""
    if not is_operator_update(update):
        return _replace(doc, update)
    _check_conflicts(update)
    new = copy.deepcopy(doc)
    for op, fields in update.items():
        if op not in OPERATORS:
            raise _unknown_modifier(op)
        if not isinstance(fields, Mapping):
            raise CommandError.of(
                "FailedToParse",
                f"Modifiers operate on fields but we found type {type_name(fields)} instead. "
                f"For example: {{$mod: {{<field>: ...}}}} not {{{op}: {fields!r}}}",
            )
        if op == "$setOnInsert" and not inserting:
            continue
        for path, arg in fields.items():
            _apply(new, op, path, arg, now)
    if "_id" in doc and not equal(new.get("_id"), doc["_id"]):
        raise CommandError.of(
            "ImmutableField",
            "Performing an update on the path '_id' would modify the immutable field '_id'",
        )
    return new


def _replace(doc: Document, replacement: Mapping[str, Any]) -> Document:
    new: Document = {}
    if "_id" in doc:
        if "_id" in replacement and not equal(replacement["_id"], doc["_id"]):
            raise CommandError.of(
                "ImmutableField",
                "After applying the update, the (immutable) field '_id' was found to have "
                f"been altered to _id: {replacement['_id']!r}",
            )
        new["_id"] = doc["_id"]
    for key, value in replacement.items():
        if key != "_id" or "_id" not in new:
            new[key] = copy.deepcopy(value)
    return new


def _check_conflicts(update: Mapping[str, Any]) -> None:
    seen: list[str] = []
    for fields in update.values():
        if not isinstance(fields, Mapping):
            continue
        for path in fields:
            for other in seen:
                if path == other or path.startswith(other + ".") or other.startswith(path + "."):
                    raise CommandError.of(
                        "ConflictingUpdateOperators",
                        f"Updating the path '{path}' would create a conflict at '{other}'",
                    )
            seen.append(path)


def _parent(doc: Document, path: str, create: bool) -> tuple[Any, str]:
    parts = path.split(".")
    node: Any = doc
    for part in parts[:-1]:
        if isinstance(node, list) and part.isdigit():
            idx = int(part)
            while create and idx >= len(node):
                node.append(None)
            node = node[idx] if idx < len(node) else None
        elif isinstance(node, dict):
            if part not in node:
                if not create:
                    return None, parts[-1]
                node[part] = {}
            node = node[part]
        else:
            node = None
        if node is None or not isinstance(node, dict | list):
            if not create:
                return None, parts[-1]
            raise CommandError(
                28, f"Cannot create field '{parts[-1]}' in element {{{part}: {node!r}}}",
                "PathNotViable",
            )  # fmt: skip
    return node, parts[-1]


def _set(doc: Document, path: str, value: Any) -> None:
    parent, leaf = _parent(doc, path, create=True)
    if isinstance(parent, list):
        idx = int(leaf)
        while idx >= len(parent):
            parent.append(None)
        parent[idx] = value
    else:
        parent[leaf] = value


def _apply(doc: Document, op: str, path: str, arg: Any, now: Any) -> None:
    current = get_first(doc, path)
    if op in ("$set", "$setOnInsert"):
        _set(doc, path, copy.deepcopy(arg))
    elif op == "$unset":
        parent, leaf = _parent(doc, path, create=False)
        if isinstance(parent, dict):
            parent.pop(leaf, None)
        elif isinstance(parent, list) and leaf.isdigit() and int(leaf) < len(parent):
            parent[int(leaf)] = None
    elif op in ("$inc", "$mul"):
        if not _is_number(arg):
            raise CommandError.of("TypeMismatch", f"Cannot {op[1:]} with non-numeric argument")
        if current is MISSING:
            _set(doc, path, arg if op == "$inc" else type(arg)(0))
        elif not _is_number(current):
            raise CommandError.of(
                "TypeMismatch",
                f"Cannot apply {op} to a value of non-numeric type. {{_id: {doc.get('_id')!r}}} "
                f"has the field '{path.split('.')[-1]}' of non-numeric type {type_name(current)}",
            )
        else:
            _set(doc, path, current + arg if op == "$inc" else current * arg)
    elif op in ("$min", "$max"):
        if current is MISSING or (
            (compare(arg, current) < 0) == (op == "$min") and not equal(arg, current)
        ):
            _set(doc, path, copy.deepcopy(arg))
    elif op in ("$addToSet", "$push"):
        _array_add(doc, op, path, current, arg)
    elif op == "$pull":
        if isinstance(current, list):
            _set(doc, path, [e for e in current if not _pull_matches(e, arg)])
    elif op == "$currentDate":
        _set(doc, path, now)
    elif op == "$rename" and current is not MISSING:
        _apply(doc, "$unset", path, 1, now)
        _set(doc, str(arg), current)


def _array_add(doc: Document, op: str, path: str, current: Any, arg: Any) -> None:
    if current is MISSING:
        current = []
    elif not isinstance(current, list):
        raise CommandError(
            2 if op == "$addToSet" else 14,
            f"Cannot apply {op} to non-array field. Field named '{path.split('.')[-1]}' has "
            f"non-array type {type_name(current)}",
            "BadValue" if op == "$addToSet" else "TypeMismatch",
        )
    items = arg["$each"] if isinstance(arg, Mapping) and "$each" in arg else [arg]
    new = list(current)
    for item in items:
        if op == "$push" or not any(equal(item, e) for e in new):
            new.append(copy.deepcopy(item))
    if op == "$push" and isinstance(arg, Mapping) and isinstance(arg.get("$slice"), int):
        limit = arg["$slice"]
        new = new[:limit] if limit >= 0 else new[limit:]
    _set(doc, path, new)


def _pull_matches(element: Any, condition: Any) -> bool:
    if is_operator_doc(condition):
        return field_matches([element], condition)
    if isinstance(condition, Mapping):
        return isinstance(element, Mapping) and matches(element, condition)
    return equal(element, condition)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def upsert_seed(query: Mapping[str, Any]) -> Document:
    """The document an upsert starts from: the query's equality fields (update_driver.cpp
    `populateDocumentWithQueryFields`)."""
    seed: Document = {}
    for key, value in query.items():
        if key == "$and" and isinstance(value, list):
            for sub in value:
                seed.update(upsert_seed(sub))
        elif key.startswith("$"):
            continue
        elif is_operator_doc(value):
            if "$eq" in value:
                _set(seed, key, copy.deepcopy(value["$eq"]))
        else:
            _set(seed, key, copy.deepcopy(value))
    return seed


def with_id_first(doc: Document) -> Document:
    """mongod stores `_id` first, generating an ObjectId when the client gave none."""
    _id = doc.get("_id", MISSING)
    if _id is MISSING:
        _id = ObjectId()
    return {"_id": _id, **{k: v for k, v in doc.items() if k != "_id"}}
