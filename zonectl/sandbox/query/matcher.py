"""Does a document match a query filter? MongoDB's match semantics, compared in BSON order.

Rules (mongo:src/mongo/db/matcher/expression_leaf.cpp, reference §8): equality includes
embedded-document equality and array-contains; `$lt/$gt/...` only compare values of the same
canonical type ("type bracketing"), except against MinKey/MaxKey; `{a: null}` also matches a
missing `a`; an array field matches if the whole array or any element satisfies the operator.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bson import Regex

from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import ARRAY, MAXKEY, MINKEY, NULL, encode, type_class
from zonectl.sandbox.query.paths import MISSING, lookup
from zonectl.sandbox.query.types import type_matches


def bad(message: str) -> CommandError:
    return CommandError.of("BadValue", message)


def matches(doc: Mapping[str, Any], query: Mapping[str, Any]) -> bool:
    for key, value in query.items():
        if key.startswith("$"):
            if not _logical(doc, key, value):
                return False
        elif not field_matches(lookup(doc, key), value):
            return False
    return True


def validate(query: Any) -> None:
    """Raise MongoDB's parse errors for a malformed filter before any document is read."""
    if not isinstance(query, Mapping):
        raise CommandError.of("TypeMismatch", "query filter must be an object")
    matches({}, query)


def _logical(doc: Mapping[str, Any], op: str, value: Any) -> bool:
    if op in ("$and", "$or", "$nor"):
        if not isinstance(value, list) or not value:
            raise bad(f"{op} argument must be a non-empty array")
        if not all(isinstance(v, Mapping) for v in value):
            raise bad(f"{op} argument's entries must be objects")
        results = [matches(doc, sub) for sub in value]
        if op == "$and":
            return all(results)
        return any(results) if op == "$or" else not any(results)
    if op == "$comment":
        return True
    raise bad(f"unknown top level operator: {op}")


def is_operator_doc(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value) and next(iter(value)).startswith("$")


def field_matches(values: list[Any], condition: Any) -> bool:
    if isinstance(condition, Regex | re.Pattern):
        return _any_elem(values, lambda v: _regex(v, condition))
    if not is_operator_doc(condition):
        return _eq(values, condition)
    for op, arg in condition.items():
        if op == "$options":
            if "$regex" not in condition:
                raise bad("$options needs a $regex")
            continue
        if not _operator(values, op, arg, condition):
            return False
    return True


# The last `$in`/`$nin` list of strings and its set: a query's list is the same object for
# every document it is matched against, so 10,000 names are hashed once, not per document.
_last_listed: tuple[list[Any], frozenset[str] | None] = ([], None)


def _string_set(arg: list[Any]) -> frozenset[str] | None:
    """The set of `arg` when it is a non-empty list of strings only, else None."""
    global _last_listed
    last = _last_listed  # one read: another thread may replace it meanwhile
    if last[0] is arg:
        return last[1]
    listed = frozenset(arg) if arg and all(type(v) is str for v in arg) else None
    _last_listed = (arg, listed)
    return listed


def _operator(values: list[Any], op: str, arg: Any, condition: Mapping[str, Any]) -> bool:
    if op == "$eq":
        return _eq(values, arg)
    if op == "$ne":
        return not _eq(values, arg)
    if op in ("$lt", "$lte", "$gt", "$gte"):
        return _compare(values, op, arg)
    if op in ("$in", "$nin"):
        if not isinstance(arg, list):
            raise bad(f"{op} needs an array")
        listed = _string_set(arg)
        if listed is not None:
            # Strings equal exactly (simple collation): a set lookup, as an index seeks
            # each listed value instead of comparing every one (same answers).
            hit = any(
                (type(v) is str and v in listed)
                or (isinstance(v, list) and any(type(e) is str and e in listed for e in v))
                for v in values
            )
            return hit if op == "$in" else not hit
        hit = any(
            field_matches(values, v) if isinstance(v, Regex | re.Pattern) else _eq(values, v)
            for v in arg
        )
        return hit if op == "$in" else not hit
    if op == "$exists":
        present = any(v is not MISSING for v in values)
        return present == _truthy(arg)
    if op == "$type":
        aliases = arg if isinstance(arg, list) else [arg]
        return any(
            type_matches(v, a) or (isinstance(v, list) and any(type_matches(e, a) for e in v))
            for v in values
            if v is not MISSING
            for a in aliases
        )
    if op == "$not":
        if not (isinstance(arg, Mapping | Regex | re.Pattern)):
            raise bad("$not needs a regex or a document")
        if isinstance(arg, Mapping) and not is_operator_doc(arg):
            raise bad("$not needs a regex or a document")
        return not field_matches(values, arg)
    if op == "$elemMatch":
        if not isinstance(arg, Mapping):
            raise bad("$elemMatch needs an Object")
        return any(isinstance(v, list) and any(_elem_match(e, arg) for e in v) for v in values)
    if op == "$size":
        if not isinstance(arg, int) or isinstance(arg, bool):
            raise bad("$size needs a number")
        return any(isinstance(v, list) and len(v) == arg for v in values)
    if op == "$all":
        if not isinstance(arg, list):
            raise bad("$all needs an array")
        return bool(arg) and all(field_matches(values, item) for item in arg)
    if op == "$regex":
        flags = condition.get("$options", "")
        pattern = arg if isinstance(arg, Regex | re.Pattern) else Regex(str(arg), str(flags))
        return _any_elem(values, lambda v: _regex(v, pattern))
    if op == "$mod":
        if not isinstance(arg, list) or len(arg) != 2:
            raise bad("malformed mod, needs to be an array")
        div, rem = arg
        return _any_elem(
            values,
            lambda v: isinstance(v, int | float) and not isinstance(v, bool) and v % div == rem,
        )
    raise bad(f"unknown operator: {op}")


def _elem_match(element: Any, spec: Mapping[str, Any]) -> bool:
    if is_operator_doc(spec) and not any(k in ("$and", "$or", "$nor") for k in spec):
        return field_matches([element], spec)
    return isinstance(element, Mapping) and matches(element, spec)


def _truthy(value: Any) -> bool:
    return value not in (False, 0, None)


def _any_elem(values: list[Any], predicate: Any) -> bool:
    for v in values:
        if v is MISSING:
            continue
        if predicate(v):
            return True
        if isinstance(v, list) and any(predicate(e) for e in v):
            return True
    return False


def _eq(values: list[Any], target: Any) -> bool:
    key = encode(target)
    for v in values:
        if v is MISSING:
            if target is None:
                return True
            continue
        if encode(v) == key:
            return True
        if isinstance(v, list) and any(encode(e) == key for e in v):
            return True
    return False


def _compare(values: list[Any], op: str, target: Any) -> bool:
    tkey = encode(target)
    rank = type_class(tkey)
    for v in values:
        if v is MISSING:
            # {$gte: null} / {$lte: null} match a missing field, as equality to null does.
            if rank == NULL and op in ("$gte", "$lte"):
                return True
            if rank == MAXKEY and op in ("$lt", "$lte"):
                return True  # everything sorts below MaxKey, missing (null) included
            if rank == MINKEY and op in ("$gt", "$gte"):
                return True
            continue
        candidates = [v, *v] if isinstance(v, list) and rank != ARRAY else [v]
        for c in candidates:
            ckey = encode(c)
            # Type bracketing: only same canonical type compares, except Min/MaxKey bounds.
            if type_class(ckey) != rank and rank not in (MINKEY, MAXKEY):
                continue
            if _holds(op, ckey, tkey):
                return True
    return False


def _holds(op: str, a: Any, b: Any) -> bool:
    if op == "$lt":
        return bool(a < b)
    if op == "$lte":
        return bool(a <= b)
    if op == "$gt":
        return bool(a > b)
    return bool(a >= b)


def _regex(value: Any, pattern: Regex[Any] | re.Pattern[str]) -> bool:
    if not isinstance(value, str):
        return False
    compiled = pattern.try_compile() if isinstance(pattern, Regex) else pattern
    return compiled.search(value) is not None
