"""`$type` matching over BSON type numbers (mongo:src/mongo/bson/bsontypes.cpp); the
numbers and names themselves live in zonectl.sandbox.bsontypes."""

from __future__ import annotations

from typing import Any

from zonectl.sandbox.bsontypes import ALIASES, NAMES, bson_type, type_name
from zonectl.sandbox.errors import CommandError

__all__ = ["ALIASES", "NAMES", "bson_type", "type_matches", "type_name"]


def type_matches(value: Any, alias: Any) -> bool:
    if alias == "number":
        return bson_type(value) in (1, 16, 18, 19)
    if isinstance(alias, str):
        if alias not in ALIASES:
            raise CommandError.of("BadValue", f"Unknown type name alias: {alias}")
        return bson_type(value) == ALIASES[alias]
    if isinstance(alias, int | float) and not isinstance(alias, bool):
        if int(alias) not in NAMES:
            raise CommandError.of("BadValue", f"Invalid numerical type code: {alias}")
        return bson_type(value) == int(alias)
    raise CommandError.of("TypeMismatch", "type must be represented as a number or a string")
