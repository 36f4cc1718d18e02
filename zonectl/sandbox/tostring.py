"""Values in the sandbox's error messages as a mongos writes them: `BSONElement::toString`
and `BSONObj::toString` (mongo:src/mongo/bson/bsonelement.cpp, bsonobj.cpp), which
`str::stream() << obj` uses: `{ x: 100 }`, `{ x: MinKey }`, `[ 1, 2 ]`, `"abc"` unescaped,
`new Date(1700000000000)`, `ObjectId('...')`, `BinData(0, 6162)` in upper-case hex,
`UUID("...")`, `Timestamp(1, 2)`, a NumberLong or NumberDecimal as its bare number, and a
double as `%.16g` with `.0` appended when that shows no `.`, `E` or `N` (appendDoubleNice).
`full=False` (the default of `toString()`) cuts strings over 160 bytes and BinData over 80."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Mapping
from typing import Any

from bson import Binary, Code, Decimal128, ObjectId, Regex, Timestamp
from bson.datetime_ms import DatetimeMS
from bson.max_key import MaxKey
from bson.min_key import MinKey

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def to_string(value: Any, *, full: bool = False) -> str:
    """One value (a document included) as MongoDB's toString prints it."""
    if isinstance(value, Mapping):
        return _elements([f"{k}: {to_string(v, full=full)}" for k, v in value.items()], "{}")
    if isinstance(value, list | tuple):
        return _elements([to_string(v, full=full) for v in value], "[]")
    if isinstance(value, MinKey | MaxKey):
        return "MinKey" if isinstance(value, MinKey) else "MaxKey"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = f"{value:.16g}"
        return text if any(c in text for c in ".EN") else text + ".0"
    if isinstance(value, int | Decimal128):
        return str(value)  # NumberInt, NumberLong, NumberDecimal: the bare number
    if isinstance(value, Code):  # a str subclass: before str
        if value.scope is not None:
            return f"CodeWScope( {value}, {to_string(value.scope, full=full)})"
        return (
            str(value)
            if full or len(value.encode()) + 1 <= 80
            else value.encode()[:70].decode(errors="ignore") + "..."
        )
    if isinstance(value, str):
        raw = value.encode()
        if not full and len(raw) + 1 > 160:
            return '"' + raw[:150].decode(errors="ignore") + '..."'
        return f'"{value}"'
    return _scalar(value, full)


def _scalar(value: Any, full: bool) -> str:
    if isinstance(value, ObjectId):
        return f"ObjectId('{value}')"
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
        return f"new Date({(aware - _EPOCH) // dt.timedelta(milliseconds=1)})"
    if isinstance(value, DatetimeMS):
        return f"new Date({int(value)})"
    if isinstance(value, uuid.UUID):
        return f'UUID("{value}")'
    if isinstance(value, Binary | bytes):
        subtype = value.subtype if isinstance(value, Binary) else 0
        data = bytes(value)
        if subtype == 4 and len(data) == 16:
            return f'UUID("{uuid.UUID(bytes=data)}")'
        if not full and len(data) > 80:
            return f"BinData({subtype}, {data[:70].hex().upper()}...)"
        return f"BinData({subtype}, {data.hex().upper()})"
    if isinstance(value, Timestamp):
        return f"Timestamp({value.time}, {value.inc})"
    if isinstance(value, Regex | re.Pattern):
        flags = Regex.from_native(value).flags if isinstance(value, re.Pattern) else value.flags
        return f"/{value.pattern}/{_flags(flags)}"
    return str(value)


def _flags(flags: int | str) -> str:
    if isinstance(flags, str):
        return flags
    letters = {re.IGNORECASE: "i", re.LOCALE: "l", re.MULTILINE: "m", re.DOTALL: "s"}
    letters |= {re.UNICODE: "u", re.VERBOSE: "x"}
    return "".join(ch for bit, ch in letters.items() if flags & bit)


def _elements(parts: list[str], empty: str) -> str:
    if not parts:
        return empty
    return f"{empty[0]} {', '.join(parts)} {empty[1]}"
