"""Checks of one collection's shard key and explicit ranges: bound fields, hashed values,
min < max, and overlaps (one sort by min per namespace, so O(n log n) in ranges)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bson import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.diagnostics import Diagnostic, Position, Severity
from zonectl.model.keys import SortKey, format_value, is_prefix_of, pad_bound, sort_key
from zonectl.policy.fragment import CollectionEntry, RangeEntry


@dataclass(frozen=True)
class CheckedRange:
    entry: RangeEntry
    min: dict[str, Any]  # padded as MongoDB stores it (as written when no key is known)
    max: dict[str, Any]
    kmin: SortKey
    kmax: SortKey

    def shown(self) -> str:
        return f"[{format_value(self.min)}, {format_value(self.max)}) of zone {self.entry.zone}"


def check_key(coll: CollectionEntry) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """The shard key pattern if it is one MongoDB accepts."""
    key = coll.model.key
    if key is None:
        return None, []
    problems: list[Diagnostic] = []
    if not key:
        problems.append(_error("ZP210", coll.at("key"), "the shard key is empty"))
    for name, value in key.items():
        if not ((type(value) is int and value == 1) or value == "hashed"):
            message = f'key field "{name}": expected 1 (ascending) or "hashed", got {value!r}'
            hint = "MongoDB shard keys are ranged ascending (1) or hashed; -1 is not allowed"
            problems.append(_error("ZP210", coll.at("key", name), message, hint))
    if sum(v == "hashed" for v in key.values()) > 1:
        problems.append(
            _error("ZP210", coll.at("key"), "a shard key can have at most one hashed field")
        )
    return (None, problems) if problems else (dict(key), [])


def check_range(
    r: RangeEntry, key: Mapping[str, Any] | None
) -> tuple[CheckedRange | None, list[Diagnostic]]:
    """Checks one range alone; returns it padded when it can take part in overlap checks."""
    problems: list[Diagnostic] = []
    for side, bound in (("min", r.min), ("max", r.max)):
        if not bound:
            hint = "MongoDB rejects an empty bound; write e.g. {field: {$minKey: 1}}"
            problems.append(_error("ZP207", r.at(side), f"{side} is empty", hint))
        elif key is not None and not is_prefix_of(bound, key):
            message = (
                f"{side} {format_value(bound)} is not a prefix of the shard key {format_value(key)}"
            )
            hint = "bound fields must be the first fields of the shard key, in key order"
            problems.append(_error("ZP202", r.at(side), message, hint))
        elif key is not None:
            problems += _hashed_values(r, side, bound, key)
    if not problems and key is None and list(r.min) != list(r.max):
        message = f"min fields ({', '.join(r.min)}) differ from max fields ({', '.join(r.max)})"
        hint = "give the collection a key:, or use the same fields in the same order"
        problems.append(_error("ZP202", r.position, message, hint))
    if problems:
        return None, problems
    low = pad_bound(r.min, key) if key is not None else dict(r.min)
    high = pad_bound(r.max, key) if key is not None else dict(r.max)
    checked = CheckedRange(r, low, high, sort_key(low), sort_key(high))
    if checked.kmin >= checked.kmax:
        message = f"min {format_value(low)} is not less than max {format_value(high)} in BSON order"
        return None, [_error("ZP201", r.position, message, "swap min and max, or widen the range")]
    return checked, []


def _hashed_values(
    r: RangeEntry, side: str, bound: Mapping[str, Any], key: Mapping[str, Any]
) -> list[Diagnostic]:
    problems = []
    for name, value in bound.items():
        if key.get(name) == "hashed" and not isinstance(value, Int64 | MinKey | MaxKey):
            message = (
                f'{side}.{name} is {format_value(value)}, but hashed field "{name}" takes only '
                "NumberLong, MinKey or MaxKey"
            )
            hint = (
                f'write {{$numberLong: "{value}"}}'
                if isinstance(value, int) and not isinstance(value, bool)
                else 'hashed bounds are positions in the hash space, e.g. {$numberLong: "0"}'
            )
            problems.append(_error("ZP205", r.at(side, name), message, hint))
    return problems


def check_overlaps(ranges: list[CheckedRange]) -> list[Diagnostic]:
    """Every range that overlaps an earlier one (by min) is reported once; a range equal to
    another in bounds and zone is only a duplicate (MongoDB treats re-adding it as a no-op)."""
    problems: list[Diagnostic] = []
    widest: CheckedRange | None = None
    for current in sorted(ranges, key=lambda c: (c.kmin, c.kmax)):
        if widest is not None and current.kmin < widest.kmax:
            first, second = sorted((widest, current), key=lambda c: c.entry.position)
            where = reference(first.entry.position, second.entry.position)
            if (current.kmin, current.kmax, current.entry.zone) == (
                widest.kmin,
                widest.kmax,
                widest.entry.zone,
            ):
                message = f"range {second.shown()} is listed twice ({where})"
                problems.append(
                    Diagnostic("ZP204", Severity.WARNING, second.entry.position, message)
                )
            else:
                message = f"range {second.shown()} overlaps {first.shown()} ({where})"
                hint = "MongoDB refuses overlapping zone ranges (RangeOverlapConflict)"
                problems.append(_error("ZP203", second.entry.position, message, hint))
        if widest is None or current.kmax > widest.kmax:
            widest = current
    return problems


def reference(other: Position, here: Position) -> str:
    """How a message at `here` points at `other`: "line 22" or "file.yaml:22"."""
    if other.file == here.file:
        return f"line {other.line}"
    return f"{other.file}:{other.line}"


def _error(code: str, where: Position, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, where, message, hint)
