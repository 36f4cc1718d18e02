"""Indented JSON written fast: the exact text of `json.dumps(obj, indent=N, ensure_ascii=...)`
from one recursive writer appending to a list, since with an indent Python 3.11's json uses
its pure-Python generator encoder (0.6 s for a 10,000-collection plan's 20 MB document).

It follows json.encoder._make_iterencode's rules with json's own C string encoders: strings
(and str subclasses) by `encode_basestring(_ascii)`; None/True/False as null/true/false; ints
and int subclasses (IntEnum) by `int.__repr__`; floats and float subclasses by
`float.__repr__`, NaN and infinities as NaN/Infinity/-Infinity; lists, tuples and their
subclasses as arrays; dicts and dict subclasses as objects, keys as json converts them
(str as is; float, True, False, None and int as their JSON text). Empty containers are `[]`
and `{}`. Anything else (a value json cannot write, a key of another type) and nesting
deeper than _MAX_DEPTH (so also a circular reference) hand the whole document to
json.dumps, which then writes it or raises its own TypeError/ValueError/RecursionError:
the result, or the error, is always json.dumps's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from itertools import repeat
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

_MAX_DEPTH = 100
_INF = float("inf")
_int_repr = int.__repr__
_float_repr = float.__repr__
_NO_KEYS = repeat(None)  # an array's items, paired as an object's members are


class _Fallback(Exception):
    """Something the writer leaves to json.dumps."""


def dumps_indented(obj: Any, *, indent: int = 2, ensure_ascii: bool = True) -> str:
    """`json.dumps(obj, indent=indent, ensure_ascii=ensure_ascii)`, byte for byte."""
    encode = encode_basestring_ascii if ensure_ascii else encode_basestring
    parts: list[str] = []
    try:
        _writer(parts, encode, " " * indent)(obj, 0)
    except _Fallback:
        return json.dumps(obj, indent=indent, ensure_ascii=ensure_ascii)
    return "".join(parts)


def _floatstr(value: float) -> str:
    """json's floatstr with allow_nan=True."""
    if value != value:
        return "NaN"
    if value == _INF:
        return "Infinity"
    if value == -_INF:
        return "-Infinity"
    return _float_repr(value)


def _scalar(value: Any, encode: Callable[[str], str]) -> str | None:
    """The JSON text of a value json writes without recursing (json's isinstance order),
    or None for a container or a value json cannot write."""
    if isinstance(value, str):
        return encode(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return _int_repr(value)
    if isinstance(value, float):
        return _floatstr(value)
    return None


def _key(key: Any, encode: Callable[[str], str]) -> str:
    """A dict key's JSON text as json converts it, or _Fallback for json's TypeError."""
    if isinstance(key, str):
        return encode(key)
    if isinstance(key, float):
        return encode(_floatstr(key))
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return encode(_int_repr(key))
    raise _Fallback


Write = Callable[[Any, int], None]


def _writer(parts: list[str], encode: Callable[[str], str], unit: str) -> Write:
    """The writer of a value at an indent level, as closures over `parts` (locals are
    cheaper than attributes at 770,000 lines). Exact types are tested first, the common
    case; subclasses and the rest go through json's isinstance order in `other`. A float
    is finite when `x - x == 0.0` (NaN and infinities give NaN).

    Every member is written after a comma and its line break; the first member's comma is
    dropped once its container is done. A str key's text (comma, line break, indent, key,
    colon) is made once per level: a plan repeats its few keys 500,000 times."""
    append = parts.append
    newline = ["\n" + unit * level for level in range(_MAX_DEPTH + 2)]
    commas = ["," + line for line in newline]
    known: list[dict[str, str]] = [{} for _ in newline]

    def value(obj: Any, level: int) -> None:
        kind = type(obj)
        if kind is dict:
            mapping(obj, level)
        elif kind is list or kind is tuple:
            array(obj, level)
        else:
            other(obj, level)

    def other(obj: Any, level: int) -> None:
        text = _scalar(obj, encode)
        if text is not None:
            append(text)
        elif isinstance(obj, list | tuple):
            array(obj, level)
        elif isinstance(obj, dict):
            mapping(obj, level)
        else:
            raise _Fallback

    def array(items: Any, level: int) -> None:
        members(items, level, False)

    def mapping(pairs: Any, level: int) -> None:
        members(pairs, level, True)

    def head_of(key: Any, inner: int) -> str:
        """The text before a member's value: comma, line break, indent, key and colon."""
        if type(key) is str:
            head = known[inner][key] = commas[inner] + encode(key) + ": "
            return head
        try:  # free unless raised: the C encoder refuses a key that is not a str
            return commas[inner] + encode(key) + ": "
        except TypeError:
            return commas[inner] + _key(key, encode) + ": "

    def members(items: Any, level: int, keyed: bool) -> None:
        """An array's items or an object's members, one per line at `level + 1`."""
        if not items:
            append("{}" if keyed else "[]")
            return
        inner = level + 1
        if inner > _MAX_DEPTH:
            raise _Fallback
        append("{" if keyed else "[")
        first = len(parts)
        heads = known[inner]
        comma = commas[inner]
        pairs: Iterable[tuple[Any, Any]] = (
            items.items() if keyed else zip(_NO_KEYS, items, strict=False)
        )
        for key, item in pairs:
            if keyed:
                head = heads.get(key) if type(key) is str else None
                if head is None:
                    head = head_of(key, inner)
            else:
                head = comma
            kind = type(item)
            if kind is str:
                append(head + encode(item))
            elif kind is dict:
                append(head)
                members(item, inner, True)
            elif kind is int:
                append(head + _int_repr(item))
            elif kind is list or kind is tuple:
                append(head)
                members(item, inner, False)
            elif item is None:
                append(head + "null")
            elif item is True:
                append(head + "true")
            elif item is False:
                append(head + "false")
            elif kind is float:
                append(head + (_float_repr(item) if item - item == 0.0 else _floatstr(item)))
            else:
                append(head)
                other(item, inner)
        parts[first] = parts[first][1:]  # the first member's comma
        append(newline[level] + ("}" if keyed else "]"))

    return value
