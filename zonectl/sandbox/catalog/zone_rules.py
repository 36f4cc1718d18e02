"""Validation rules shared by the zone and DDL commands: request parsing and range fitting.

Each function raises the `CommandError` MongoDB returns for the rule it checks, with the
code and message of the source it cites (reference §1.4, §1.5).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bson import Int64, Regex
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.bounds import is_prefix_of, pad_bound
from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import compare
from zonectl.sandbox.tostring import to_string

_INVALID_DB_CHARS = set('/\\. "$*<>:|?\x00')


def wrong_type(field: str, expected: str, value: Any) -> CommandError:
    """bsonExtractTypedField's message (src/mongo/bson/util/bson_extract.cpp)."""
    return CommandError.of(
        "TypeMismatch",
        f'"{field}" had the wrong type. Expected {expected}, found {type_name(value)}',
    )


def missing(field: str) -> CommandError:
    return CommandError.of("NoSuchKey", f'Missing expected field "{field}"')


def string_field(body: Mapping[str, Any], field: str) -> str:
    if field not in body:
        raise missing(field)
    value = body[field]
    if not isinstance(value, str):
        raise wrong_type(field, "string", value)
    return value


def is_valid_namespace(ns: str) -> bool:
    """NamespaceString::isValid plus the database-name character rules."""
    db, dot, coll = ns.partition(".")
    return bool(dot and db and coll) and not (set(db) & _INVALID_DB_CHARS) and "\x00" not in coll


def parse_namespace(body: Mapping[str, Any], command: str) -> str:
    """The command's namespace argument: TypeMismatch, then InvalidNamespace (§1.4 #1-2)."""
    value = body[command]
    if not isinstance(value, str):
        raise wrong_type(command, "string", value)
    if not is_valid_namespace(value):
        raise CommandError.of("InvalidNamespace", f"{value} is not a valid namespace")
    return value


def parse_bound(body: Mapping[str, Any], field: str) -> dict[str, Any]:
    """ChunkRange::fromBSON for one bound (§1.4 #3-4)."""
    context = f"The field '{field}' cannot be parsed :: caused by :: "
    if field not in body:
        raise CommandError.of("NoSuchKey", context + f'Missing expected field "{field}"')
    value = body[field]
    if not isinstance(value, Mapping):
        raise CommandError.of(
            "TypeMismatch",
            context + f'"{field}" had the wrong type. Expected object, found {type_name(value)}',
        )
    if not value:
        raise CommandError.of("BadValue", f"The field '{field}' cannot be empty")
    return dict(value)


def parse_range(body: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    lo, hi = parse_bound(body, "min"), parse_bound(body, "max")
    if compare(lo, hi) >= 0:
        # jstests/sharding/update_zone_key_range.js: FailedToParse for min > max and ==.
        raise CommandError.of(
            "FailedToParse", f"min: {to_string(lo)} should be less than max: {to_string(hi)}"
        )
    return lo, hi


def check_storage(bound: Mapping[str, Any]) -> None:
    """ShardKeyPattern::checkShardKeyIsValidForMetadataStorage (src/mongo/s/shard_key_pattern.cpp):
    no arrays, no regexes, no embedded objects whose first field starts with '$'."""
    for name, value in bound.items():
        bad = isinstance(value, list | tuple | Regex | re.Pattern) or (
            isinstance(value, Mapping) and bool(value) and str(next(iter(value))).startswith("$")
        )
        if bad:
            raise CommandError.of(
                "BadValue",
                f"Shard key element {name}: {to_string(value)} is not valid for storage",
            )


def fit_range(
    ns: str, key: Mapping[str, Any] | None, lo: dict[str, Any], hi: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fit [lo, hi) to the shard key (§1.5 (a)): prefix check then MinKey padding for a
    sharded namespace; identical field names for an unsharded one, stored as given."""
    if key is not None:
        for field, bound in (("min", lo), ("max", hi)):
            if not is_prefix_of(bound, key):
                raise CommandError.of(
                    "ShardKeyNotFound",
                    f"{field}: {to_string(bound)} is not a prefix of the shard key "
                    f"{to_string(key)} of ns: {ns}",
                )
        return pad_bound(lo, key), pad_bound(hi, key)
    if list(lo) != list(hi):
        # ChunkRange::extractKeyPattern (src/mongo/s/catalog/type_chunk.cpp).
        raise CommandError.of(
            "ShardKeyNotFound",
            f"the shard key of min {to_string(lo)} doesn't match with the shard key of max "
            f"{to_string(hi)}",
        )
    return lo, hi


def is_valid_hashed_value(value: Any) -> bool:
    return isinstance(value, Int64 | MinKey | MaxKey)


def check_hashed(key: Mapping[str, Any], lo: Mapping[str, Any], hi: Mapping[str, Any]) -> None:
    """§1.5 (c): bounds of hashed key fields must be NumberLong, MinKey or MaxKey
    (sharding_catalog_manager_zone_operations.cpp, checkForHashedShardKey...)."""
    for field, kind in key.items():
        if kind != "hashed":
            continue
        if not (is_valid_hashed_value(lo.get(field)) and is_valid_hashed_value(hi.get(field))):
            raise CommandError.of(
                "InvalidOptions",
                f"there exists a field in the range {to_string(lo)} -->> {to_string(hi)} "
                "not of type NumberLong, MinKey, or MaxKey which corresponds to a hashed field "
                f"in the shard key pattern {to_string(key)}",
            )


def range_text(lo: Mapping[str, Any], hi: Mapping[str, Any], zone: str) -> str:
    """ZoneRange::toString (src/mongo/db/s/balancer/balancer_policy.cpp)."""
    return f"{to_string(lo)} -->> {to_string(hi)}  on  {zone}"
