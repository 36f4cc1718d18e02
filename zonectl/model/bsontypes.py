"""BSON type numbers and names as MongoDB spells them (mongo:src/mongo/bson/bsontypes.cpp):
the `$type` aliases, and `typeName()` used in error messages ("found int", "found long")."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Mapping
from typing import Any

from bson import Binary, Code, Decimal128, Int64, ObjectId, Regex, Timestamp
from bson.datetime_ms import DatetimeMS
from bson.max_key import MaxKey
from bson.min_key import MinKey

ALIASES = {
    "double": 1, "string": 2, "object": 3, "array": 4, "binData": 5, "undefined": 6,
    "objectId": 7, "bool": 8, "date": 9, "null": 10, "regex": 11, "dbPointer": 12,
    "javascript": 13, "symbol": 14, "javascriptWithScope": 15, "int": 16, "timestamp": 17,
    "long": 18, "decimal": 19, "minKey": -1, "maxKey": 127,
}  # fmt: skip
NAMES = {number: name for name, number in ALIASES.items()}


def bson_type(value: Any) -> int:
    """The BSON type number a decoded value is stored as."""
    if isinstance(value, bool):
        return 8
    if isinstance(value, Int64):
        return 18
    if isinstance(value, int):
        return 16 if -(2**31) <= value < 2**31 else 18
    if isinstance(value, float):
        return 1
    if isinstance(value, Code):
        return 15 if value.scope is not None else 13
    if isinstance(value, str):
        return 2
    if isinstance(value, Mapping):
        return 3
    if isinstance(value, list | tuple):
        return 4
    if isinstance(value, Binary | bytes | uuid.UUID):
        return 5
    if isinstance(value, ObjectId):
        return 7
    if isinstance(value, dt.datetime | DatetimeMS):
        return 9
    if value is None:
        return 10
    if isinstance(value, Regex | re.Pattern):
        return 11
    if isinstance(value, Timestamp):
        return 17
    if isinstance(value, Decimal128):
        return 19
    if isinstance(value, MinKey):
        return -1
    if isinstance(value, MaxKey):
        return 127
    return 3


def type_name(value: Any) -> str:
    """MongoDB's `typeName()` of the type a decoded value is stored as."""
    return NAMES.get(bson_type(value), "object")
