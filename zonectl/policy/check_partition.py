"""`partition: <field>`: the collection's ranges split the key space by whole values of the
key's first field (a multi-hotspot key `{bucket: 1, ts: 1}`: each zone owns some buckets,
and so the newest chunks of those buckets). Checked: the field is the key's first (ZP211),
the ranges cover MinKey to MaxKey without a gap (ZP212), and every bound is a bare value
of the field, so no value is split between two ranges (ZP213). Overlaps are ZP203's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.diagnostics import Diagnostic, Position, Severity
from zonectl.model.keys import format_value, is_max_key, is_min_key
from zonectl.policy.check_ranges import CheckedRange, reference
from zonectl.policy.fragment import CollectionEntry


def check_partition(
    coll: CollectionEntry, key: Mapping[str, Any] | None, checked: list[CheckedRange]
) -> list[Diagnostic]:
    field = coll.model.partition
    if field is None:
        return []
    here = coll.at("partition")
    fields = list(key or {})
    if not fields or fields[0] != field:
        shown = format_value(dict(key)) if key else "no key: (give the collection one)"
        message = f"partition field {field!r} is not the first field of the shard key {shown}"
        hint = "partition names the key's first field, whose values the ranges divide"
        return [_error("ZP211", here, message, hint)]
    if key is not None and key[field] == "hashed":
        message = f"partition field {field!r} is hashed: its ranges are hash positions"
        return [_error("ZP211", here, message, "partition a ranged first field")]
    problems = [p for c in checked for p in _splits(c, field, fields[1:])]
    return problems + _gaps(coll, field, checked)


def _splits(c: CheckedRange, field: str, rest: list[str]) -> list[Diagnostic]:
    """A bound naming a later field (other than MinKey, or MaxKey after MaxKey) cuts one
    value of `field` in two: the two sides can belong to different zones."""
    out = []
    for side, bound in (("min", c.min), ("max", c.max)):
        top = is_max_key(bound.get(field))
        cut = [
            f for f in rest if not (is_min_key(bound.get(f)) or (top and is_max_key(bound.get(f))))
        ]
        if cut:
            message = (
                f"{side} {format_value(bound)} of range {c.shown()} splits the {field} value "
                f"{format_value(bound.get(field))} at {cut[0]}: part of it could go to "
                "another zone"
            )
            hint = f"bound partition ranges by {field} alone, e.g. {{{field}: ...}}"
            out.append(_error("ZP213", c.entry.at(side), message, hint))
    return out


def _gaps(coll: CollectionEntry, field: str, checked: list[CheckedRange]) -> list[Diagnostic]:
    here = coll.at("partition")
    if not checked:
        message = f"partition by {field} of {coll.namespace} has no ranges to cover the key space"
        return [_error("ZP212", here, message, "add ranges from MinKey to MaxKey")]
    ordered = sorted(checked, key=lambda c: (c.kmin, c.kmax))
    out: list[Diagnostic] = []
    first = ordered[0]
    if not is_min_key(first.min.get(field)):
        message = (
            f"partition by {field}: nothing covers the values below {format_value(first.min)} "
            f"(range {first.shown()} is the lowest)"
        )
        hint = f"start the lowest range at {{{field}: {{$minKey: 1}}}}"
        out.append(_error("ZP212", first.entry.at("min"), message, hint))
    reach = first
    for c in ordered[1:]:
        if c.kmin > reach.kmax:
            where = reference(reach.entry.position, c.entry.position)
            message = (
                f"partition by {field}: nothing covers [{format_value(reach.max)}, "
                f"{format_value(c.min)}) between {reach.shown()} ({where}) and {c.shown()}"
            )
            hint = "end one range where the next begins"
            out.append(_error("ZP212", c.entry.at("min"), message, hint))
        if c.kmax > reach.kmax:
            reach = c
    if not is_max_key(reach.max.get(field)):
        message = (
            f"partition by {field}: nothing covers the values from {format_value(reach.max)} "
            f"(range {reach.shown()} ends highest)"
        )
        hint = f"end the highest range at {{{field}: {{$maxKey: 1}}}}"
        out.append(_error("ZP212", reach.entry.at("max"), message, hint))
    return out


def _error(code: str, where: Position, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, where, message, hint)
