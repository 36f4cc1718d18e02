"""BSON type numbers and names as MongoDB spells them (mongo:src/mongo/bson/bsontypes.cpp
`typeName()`, and the `$type` aliases of mongo:src/mongo/db/matcher/matcher_type_set.cpp):
"found int", "found long". A value's type is the type byte of the BSON pymongo sends for it."""

from __future__ import annotations

from typing import Any

import bson

from zonectl.sandbox.codec import CODEC

ALIASES = {
    "double": 1, "string": 2, "object": 3, "array": 4, "binData": 5, "undefined": 6,
    "objectId": 7, "bool": 8, "date": 9, "null": 10, "regex": 11, "dbPointer": 12,
    "javascript": 13, "symbol": 14, "javascriptWithScope": 15, "int": 16, "timestamp": 17,
    "long": 18, "decimal": 19, "minKey": -1, "maxKey": 127,
}  # fmt: skip
NAMES = {number: name for name, number in ALIASES.items()}
_OBJECT = 3


def bson_type(value: Any) -> int:
    """The BSON type number a decoded value is stored as (the element's type byte)."""
    try:
        raw = bson.encode({"": value}, codec_options=CODEC)
    except (bson.errors.InvalidDocument, OverflowError):
        return _OBJECT  # not a BSON value: no client can send it
    return raw[4] if raw[4] != 0xFF else -1  # MinKey's byte is 0xFF, its number -1


def type_name(value: Any) -> str:
    """MongoDB's `typeName()` of the type a decoded value is stored as."""
    return NAMES.get(bson_type(value), "object")
