"""Decode shard-key bounds written as MongoDB Extended JSON inside YAML, with exactly the
semantics of `bson.json_util.loads` (canonical and relaxed), and nothing guessed."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Mapping
from typing import Any

from bson import DBRef, Int64, Regex, json_util
from bson.binary import UuidRepresentation
from bson.json_util import JSONMode, JSONOptions

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# tz_aware: every decoded date is UTC-aware; STANDARD: $uuid and subtype 4 decode to UUID.
OPTIONS = JSONOptions(
    json_mode=JSONMode.RELAXED,
    tz_aware=True,
    tzinfo=dt.UTC,
    uuid_representation=UuidRepresentation.STANDARD,
)

TYPE_KEYS = (
    "$minKey",
    "$maxKey",
    "$date",
    "$oid",
    "$numberLong",
    "$numberInt",
    "$numberDouble",
    "$numberDecimal",
    "$binary",
    "$uuid",
    "$timestamp",
    "$regularExpression",
    "$symbol",
    "$code",
    "$undefined",
)

_HINTS = {
    "$date": 'write {$date: "2026-01-01T00:00:00Z"} or {$date: {$numberLong: "1767225600000"}}',
    "$oid": 'write {$oid: "<24 hex digits>"}',
    "$numberLong": 'write {$numberLong: "42"}',
    "$minKey": "write {$minKey: 1}",
    "$maxKey": "write {$maxKey: 1}",
    "$binary": 'write {$binary: {base64: "...", subType: "00"}}',
    "$uuid": 'write {$uuid: "00112233-4455-6677-8899-aabbccddeeff"}',
}


class BoundError(Exception):
    """A value in a bound that is not valid Extended JSON or cannot be a shard-key value."""

    def __init__(self, path: tuple[str | int, ...], code: str, message: str, hint: str | None):
        super().__init__(message)
        self.path = path
        self.code = code
        self.message = message
        self.hint = hint


def decode_bound(raw: Mapping[str, Any]) -> dict[str, Any]:
    """{field: value} of plain YAML values -> {field: BSON value}; raises BoundError."""
    return {name: _value(value, (name,)) for name, value in raw.items()}


def _value(raw: Any, path: tuple[str | int, ...]) -> Any:
    if isinstance(raw, dict):
        # Bottom-up, as json.loads applies json_util's object_pairs_hook.
        pairs = [(name, _value(v, (*path, name))) for name, v in raw.items()]
        return _document(pairs, raw, path)
    if isinstance(raw, list):
        raise BoundError(
            path,
            "ZP206",
            "an array cannot be a shard-key value",
            "MongoDB rejects arrays in zone bounds",
        )
    if isinstance(raw, int) and not isinstance(raw, bool):
        return _integer(raw, path)
    return raw


def _document(
    pairs: list[tuple[str, Any]], raw: dict[str, Any], path: tuple[str | int, ...]
) -> Any:
    dollar = next((name for name, _ in pairs if name.startswith("$")), None)
    try:
        value = json_util.object_pairs_hook(pairs, OPTIONS)
    except Exception as exc:  # json_util raises TypeError/ValueError/InvalidId/OverflowError...
        shown = json_util.dumps(raw) if _dumpable(raw) else str(raw)
        raise BoundError(
            path, "ZP200", f"invalid Extended JSON {shown}: {exc}", _HINTS.get(dollar or "")
        ) from None
    if isinstance(value, dict) and dollar is not None:
        close = difflib.get_close_matches(dollar, TYPE_KEYS, n=1, cutoff=0.6)
        raise BoundError(
            path,
            "ZP200",
            f'unknown Extended JSON type "{dollar}"',
            f'did you mean "{close[0]}"?' if close else "known: " + ", ".join(TYPE_KEYS),
        )
    if isinstance(value, Regex | re.Pattern):
        raise BoundError(path, "ZP206", "a regular expression cannot be a shard-key value", None)
    if isinstance(value, DBRef):
        raise BoundError(path, "ZP206", "a DBRef cannot be a shard-key value", None)
    if isinstance(value, int) and not isinstance(value, bool | Int64):
        return _integer(value, path)
    return value


def _integer(value: int, path: tuple[str | int, ...]) -> int | Int64:
    # bson encodes a Python int as int32 when it fits, else int64, else fails.
    if INT32_MIN <= value <= INT32_MAX:
        return value
    if INT64_MIN <= value <= INT64_MAX:
        return Int64(value)
    raise BoundError(path, "ZP200", f"integer {value} does not fit in 64 bits", None)


def _dumpable(raw: Any) -> bool:
    try:
        json_util.dumps(raw)
    except Exception:  # only used to choose how to print the offending value
        return False
    return True
