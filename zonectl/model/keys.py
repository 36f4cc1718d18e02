"""The total BSON order of shard-key values and documents, as MongoDB compares them.

Every range computation in zonectl (min < max, overlap, containment, identical ranges, the
sandbox's sorted chunks) goes through `sort_key`. Rules (reference §8; MongoDB's
`canonicalizeBSONType` in src/mongo/bson/bsontypes.h and `compareElementValues` in
src/mongo/bson/bsonelement.cpp):

* values of different canonical types order by type rank (table `_RANK` below);
* numbers (int32, int64, double, decimal) compare by value; NaN is below every other number;
* strings compare by UTF-8 bytes (code-point order is the same thing);
* documents compare element by element: type rank, then field name, then value; a prefix
  is smaller than the longer document; a DBRef is the document {$ref, $id, $db} pymongo sends;
* BinData compares length, then subtype, then bytes, as the BSON holds them (subtype 2 with
  its inner 4-byte length);
* regexes compare pattern, then the flag letters pymongo sends ("ilmsux" order, `u` included).
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import re
import struct
import uuid
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from bson import Binary, Code, DBRef, Decimal128, Int64, ObjectId, Regex, Timestamp
from bson.datetime_ms import DatetimeMS
from bson.max_key import MaxKey
from bson.min_key import MinKey

# Canonical type ranks, from MongoDB's canonicalizeBSONType.
RANK_MINKEY = -1
RANK_NULL = 5
RANK_NUMBER = 10
RANK_STRING = 15
RANK_OBJECT = 20
RANK_ARRAY = 25
RANK_BINDATA = 30
RANK_OBJECTID = 35
RANK_BOOL = 40
RANK_DATE = 45
RANK_TIMESTAMP = 47
RANK_REGEX = 50
RANK_DBREF = 55  # BSON DBPointer; pymongo sends a DBRef as a document instead
RANK_CODE = 60
RANK_CODE_W_SCOPE = 65
RANK_MAXKEY = 127

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

SortKey = tuple[Any, ...]


def type_rank(value: Any) -> int:
    """The canonical BSON type rank of a decoded value."""
    return sort_key(value)[0]  # type: ignore[no-any-return]


def datetime_to_millis(value: dt.datetime) -> int:
    """Milliseconds since the epoch; naive datetimes are UTC, as bson decodes them."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return (value - _EPOCH) // dt.timedelta(milliseconds=1)


def _number_key(value: Any) -> SortKey:
    if isinstance(value, Decimal128):
        value = value.to_decimal()
    if isinstance(value, Decimal):
        if value.is_nan():
            return (RANK_NUMBER, 0)
        return (RANK_NUMBER, 1, value)
    if isinstance(value, float) and math.isnan(value):
        return (RANK_NUMBER, 0)
    # int and Int64 are exact; Python compares int, float and Decimal exactly.
    return (RANK_NUMBER, 1, int(value) if isinstance(value, int) else value)


def document_key(doc: Mapping[str, Any]) -> SortKey:
    """Sort key of a document: per element (type rank, field name, value key)."""
    return (RANK_OBJECT, tuple(_element_key(name, value) for name, value in doc.items()))


# The keys of the commonest element values, built without a call to sort_key (the same
# tuples it gives: tests/model checks dicts against the generic Mapping path).
_MINKEY_KEY: SortKey = (RANK_MINKEY,)
_MAXKEY_KEY: SortKey = (RANK_MAXKEY,)


def _element_key(name: str, value: Any) -> SortKey:
    kind = type(value)
    if kind is int:
        return (RANK_NUMBER, name, (RANK_NUMBER, 1, value))
    if kind is str:
        return (RANK_STRING, name, (RANK_STRING, value))
    if kind is MinKey:
        return (RANK_MINKEY, name, _MINKEY_KEY)
    if kind is MaxKey:
        return (RANK_MAXKEY, name, _MAXKEY_KEY)
    vkey = sort_key(value)
    return (vkey[0], name, vkey)


def sort_key(value: Any) -> SortKey:
    """A Python-comparable key that orders decoded BSON values exactly as MongoDB does.

    Two values are equal in MongoDB's comparison exactly when their keys are equal.
    """
    # The exact types of most shard key values first (same keys as below, found sooner:
    # a plan over 10,000 collections takes a million keys).
    kind = type(value)
    if kind is dict:
        if len(value) == 1:  # most shard keys have one field
            for name, element in value.items():
                return (RANK_OBJECT, (_element_key(name, element),))
        return (RANK_OBJECT, tuple([_element_key(n, v) for n, v in value.items()]))
    if kind is int:
        return (RANK_NUMBER, 1, value)
    if kind is str:
        return (RANK_STRING, value)
    if kind is MinKey:
        return _MINKEY_KEY
    if kind is MaxKey:
        return _MAXKEY_KEY
    # Order of the isinstance checks matters: bool is an int, Int64 is an int,
    # ObjectId/Binary must be caught before generic bytes/str handling.
    if isinstance(value, MinKey):
        return (RANK_MINKEY,)
    if isinstance(value, MaxKey):
        return (RANK_MAXKEY,)
    if value is None:
        return (RANK_NULL,)
    if isinstance(value, bool):
        return (RANK_BOOL, value)
    if isinstance(value, int | float | Decimal128 | Decimal):
        return _number_key(value)
    if isinstance(value, Code):  # Code is a str subclass
        if value.scope is not None:
            return (RANK_CODE_W_SCOPE, str(value), document_key(value.scope))
        return (RANK_CODE, str(value))
    if isinstance(value, str):
        return (RANK_STRING, value)
    if isinstance(value, DBRef):
        # pymongo sends a DBRef as a plain document, never as BSON's deprecated DBPointer.
        return document_key(value.as_doc())
    if isinstance(value, Mapping):
        return document_key(value)
    if isinstance(value, Binary):
        return _binary_key(bytes(value), value.subtype)
    if isinstance(value, bytes):
        return _binary_key(value, 0)
    if isinstance(value, Sequence):
        # Arrays compare as documents keyed "0", "1", ... (same rank rules per element).
        return (RANK_ARRAY, tuple(_element_key(str(i), v) for i, v in enumerate(value)))
    if isinstance(value, ObjectId):
        return (RANK_OBJECTID, value.binary)
    if isinstance(value, dt.datetime):
        return (RANK_DATE, datetime_to_millis(value))
    if isinstance(value, DatetimeMS):
        return (RANK_DATE, int(value))
    if isinstance(value, Timestamp):
        return (RANK_TIMESTAMP, value.time, value.inc)
    if isinstance(value, Regex):
        return (RANK_REGEX, value.pattern, _regex_flags(value.flags))
    if isinstance(value, re.Pattern):
        return (RANK_REGEX, value.pattern, _regex_flags(value.flags))
    if hasattr(value, "bytes") and type(value).__name__ == "UUID":
        # uuid.UUID is stored as BinData subtype 4.
        raw: bytes = value.bytes
        return (RANK_BINDATA, len(raw), 4, raw)
    raise TypeError(f"not a BSON value: {value!r} ({type(value).__name__})")


def _binary_key(data: bytes, subtype: int) -> SortKey:
    if subtype == 2:
        # The old binary subtype holds its own length first; MongoDB compares the whole value
        # (compareElementValues, case BinData: objsize, then memcmp from the subtype byte on).
        data = struct.pack("<i", len(data)) + data
    return (RANK_BINDATA, len(data), subtype, data)


def _regex_flags(flags: int | str) -> str:
    """The flag letters as pymongo encodes them; MongoDB compares them with strcmp."""
    if isinstance(flags, str):
        return "".join(sorted(flags))
    letters = {
        re.IGNORECASE: "i",
        re.LOCALE: "l",
        re.MULTILINE: "m",
        re.DOTALL: "s",
        re.UNICODE: "u",  # every compiled str pattern carries it
        re.VERBOSE: "x",
    }
    return "".join(ch for bit, ch in letters.items() if flags & bit)


def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 as MongoDB orders the two values (documents included)."""
    ka, kb = sort_key(a), sort_key(b)
    return (ka > kb) - (ka < kb)


def bson_equal(a: Any, b: Any) -> bool:
    """MongoDB equality: numbers by value across types; field names and order matter."""
    return sort_key(a) == sort_key(b)


def is_min_key(value: Any) -> bool:
    return isinstance(value, MinKey)


def is_max_key(value: Any) -> bool:
    return isinstance(value, MaxKey)


def is_number_long(value: Any) -> bool:
    return isinstance(value, Int64)


def global_min(key_pattern: Mapping[str, Any]) -> dict[str, Any]:
    """The smallest bound of a key pattern: every field MinKey."""
    return {field: MinKey() for field in key_pattern}


def global_max(key_pattern: Mapping[str, Any]) -> dict[str, Any]:
    """The largest bound of a key pattern: every field MaxKey."""
    return {field: MaxKey() for field in key_pattern}


def is_prefix_of(bound: Mapping[str, Any], key_pattern: Mapping[str, Any]) -> bool:
    """True when the bound's field names are a prefix of the key pattern's, in order."""
    names = list(bound)
    return bool(names) and names == list(key_pattern)[: len(names)]


def pad_bound(bound: Mapping[str, Any], key_pattern: Mapping[str, Any]) -> dict[str, Any]:
    """Fill missing trailing key fields with MinKey, as the config server stores a bound.

    MongoDB's `extendRangeBound(..., makeUpperInclusive=false)` fills with MinKey for both
    min and max (reference §1.5 (a)). The caller must check `is_prefix_of` first.
    """
    padded = dict(bound)
    for field in key_pattern:
        if field not in padded:
            padded[field] = MinKey()
    return {field: padded[field] for field in key_pattern}


def range_contains(outer_min: Any, outer_max: Any, inner_min: Any, inner_max: Any) -> bool:
    """[inner_min, inner_max) lies wholly inside [outer_min, outer_max)."""
    return compare(outer_min, inner_min) <= 0 and compare(inner_max, outer_max) <= 0


def ranges_overlap(a_min: Any, a_max: Any, b_min: Any, b_max: Any) -> bool:
    """Half-open ranges overlap; touching ranges (a_max == b_min) do not."""
    return compare(a_min, b_max) < 0 and compare(b_min, a_max) < 0


def format_value(value: Any) -> str:
    """A short, shell-like rendering of a BSON value for messages and plans."""
    if type(value) is dict:  # a bound, the usual value: what the Mapping case below gives
        inner = ", ".join(f"{name}: {format_value(v)}" for name, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, MinKey):
        return "MinKey"
    if isinstance(value, MaxKey):
        return "MaxKey"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Int64):
        return f"NumberLong({int(value)})"
    if isinstance(value, Decimal128):
        return f'NumberDecimal("{value}")'
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, ObjectId):
        return f'ObjectId("{value}")'
    if isinstance(value, dt.datetime):
        text = value.replace(tzinfo=None).isoformat(timespec="milliseconds")
        return f'ISODate("{text}Z")'
    if isinstance(value, Binary | bytes):
        subtype = value.subtype if isinstance(value, Binary) else 0
        return f'BinData({subtype}, "{base64.b64encode(bytes(value)).decode()}")'
    if isinstance(value, uuid.UUID):
        return f'UUID("{value}")'
    if isinstance(value, Timestamp):
        return f"Timestamp({value.time}, {value.inc})"
    if isinstance(value, Mapping):
        inner = ", ".join(f"{name}: {format_value(v)}" for name, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, list | tuple):
        return "[ " + ", ".join(format_value(v) for v in value) + " ]"
    if isinstance(value, float):
        return repr(value)
    return str(value)
