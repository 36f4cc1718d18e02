"""Dotted-path lookup with MongoDB's implicit array traversal (`a.b` reaches into arrays of
documents; a numeric component also indexes an array), the basis of every operator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MISSING = object()


def lookup(doc: Any, path: str) -> list[Any]:
    """Every value `path` reaches in `doc` (MISSING when nothing is there).

    Arrays met before the last component are traversed element-wise, as MongoDB's
    ElementPath does; the final value is returned as is (arrays included), and the
    operators decide whether to look inside it.
    """
    if type(doc) is dict and "." not in path:  # a top-level field: what _walk finds
        return [doc[path]] if path in doc else [MISSING]
    return _walk(doc, path.split("."))


def _walk(value: Any, parts: list[str]) -> list[Any]:
    if not parts:
        return [value]
    head, rest = parts[0], parts[1:]
    if type(value) is dict or isinstance(value, Mapping):
        if head in value:
            return _walk(value[head], rest)
        return [MISSING]
    if isinstance(value, list):
        out: list[Any] = []
        if head.isdigit() and int(head) < len(value):
            out.extend(_walk(value[int(head)], rest))
        for item in value:
            if isinstance(item, Mapping):
                out.extend(v for v in _walk(item, parts) if v is not MISSING)
        return out or [MISSING]
    return [MISSING]


def get_first(doc: Any, path: str) -> Any:
    """The plain value at a dotted path without array traversal (MISSING if absent)."""
    value = doc
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return MISSING
    return value
