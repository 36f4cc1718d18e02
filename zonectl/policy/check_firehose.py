"""Checks of a collection's firehose window and pin: the field against the shard key, the
type of bounds on that field, schedule and time zone, and what they overlap."""

from __future__ import annotations

import datetime as dt
import difflib
import zoneinfo
from collections.abc import Mapping
from typing import Any

from bson import Decimal128, Int64, ObjectId
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.diagnostics import Diagnostic, Position, Severity
from zonectl.model.keys import format_value
from zonectl.policy.check_ranges import CheckedRange, reference
from zonectl.policy.fragment import CollectionEntry
from zonectl.policy.schema import FirehoseModel

_FITS: dict[str, tuple[type, ...]] = {
    "date": (dt.datetime,),
    "objectId": (ObjectId,),
    "epochSeconds": (int, Int64, float, Decimal128),
    "epochMillis": (int, Int64, float, Decimal128),
}
_EXAMPLE = {
    "date": '{$date: "2026-01-01T00:00:00Z"}',
    "objectId": '{$oid: "6955b9000000000000000000"}',
    "epochSeconds": "1767225600",
    "epochMillis": '{$numberLong: "1767225600000"}',
}


def check_firehose(coll: CollectionEntry, key: Mapping[str, Any] | None) -> list[Diagnostic]:
    fh = coll.model.firehose
    if fh is None:
        return []
    problems: list[Diagnostic] = []
    if coll.model.key is None:
        message = (
            f'firehose on {coll.namespace} has no key:, so field "{fh.field}" is checked '
            "against the live shard key only at plan time"
        )
        problems.append(Diagnostic("ZP409", Severity.WARNING, coll.at("firehose"), message))
    elif key is not None:
        first = next(iter(key))
        if fh.field != first:
            message = (
                f'firehose field "{fh.field}" is not the first shard-key field of '
                f'{format_value(key)} (that is "{first}")'
            )
            hint = "a rolling window splits the key space on its first field"
            problems.append(_error("ZP401", coll.at("firehose", "field"), message, hint))
        elif key[first] == "hashed":
            message = (
                f'firehose field "{fh.field}" is hashed in the shard key; '
                "a window needs a ranged field"
            )
            problems.append(_error("ZP402", coll.at("firehose", "field"), message))
    problems += _type_fits_field(coll, fh)
    if fh.cold is not None and fh.cold == fh.hot:
        message = f'firehose hot and cold are both zone "{fh.hot}"; the window would move nothing'
        problems.append(_error("ZP408", coll.at("firehose", "cold"), message))
    problems += _schedule(coll, fh)
    return problems


def check_bound_types(coll: CollectionEntry, checked: list[CheckedRange]) -> list[Diagnostic]:
    """Warn when a bound on the firehose field holds another type: BSON orders types apart,
    so a string "2026-01-01" sorts before every date and never bounds one."""
    fh = coll.model.firehose
    if fh is None:
        return []
    problems: list[Diagnostic] = []
    for c in checked:
        for side, bound in (("min", c.entry.min), ("max", c.entry.max)):
            value = bound.get(fh.field)
            if value is None and fh.field not in bound:
                continue
            if isinstance(value, (MinKey, MaxKey, *_FITS[fh.type])) and not isinstance(value, bool):
                continue
            what = "a string" if isinstance(value, str) else format_value(value)
            message = (
                f"{side}.{fh.field} is {what}, not a {fh.type} value as the firehose of "
                f"{coll.namespace} says"
            )
            hint = f"write {_EXAMPLE[fh.type]}; BSON never orders a string among dates"
            problems.append(
                Diagnostic("ZP403", Severity.WARNING, c.entry.at(side, fh.field), message, hint)
            )
    return problems


def check_coverage(coll: CollectionEntry, checked: list[CheckedRange]) -> list[Diagnostic]:
    """A pin, and a firehose with a cold zone, cover the whole key space; a hot window
    covers [boundary, MaxKey) for every boundary, so any range reaching MaxKey on the
    firehose field overlaps it whatever the instant."""
    model = coll.model
    problems: list[Diagnostic] = []
    if model.pin is not None and (checked or model.firehose is not None):
        here = coll.at("pin")
        if checked:
            first = min(checked, key=lambda c: c.entry.position).entry.position
            message = (
                f"pin of {coll.namespace} to zone {model.pin} covers the whole key space and "
                f"overlaps {_ranges(len(checked))} (first at {reference(first, here)})"
            )
            problems.append(_error("ZP203", here, message, "use either pin or ranges"))
        if model.firehose is not None:
            message = f"pin of {coll.namespace} to zone {model.pin} overlaps its firehose windows"
            problems.append(_error("ZP203", here, message, "use either pin or firehose"))
    fh = model.firehose
    if fh is None or not checked:
        return problems
    here = coll.at("firehose")
    if fh.cold is not None:
        first = min(checked, key=lambda c: c.entry.position).entry.position
        message = (
            f"firehose of {coll.namespace} (hot {fh.hot}, cold {fh.cold}) covers the whole key "
            f"space and overlaps {_ranges(len(checked))} (first at {reference(first, here)})"
        )
        problems.append(_error("ZP203", here, message, "drop cold:, or drop the ranges"))
        return problems
    for c in checked:
        top = c.max.get(fh.field)
        if isinstance(top, MaxKey):
            where = reference(here, c.entry.position)
            message = (
                f"range {c.shown()} reaches MaxKey on {fh.field}, so it overlaps the firehose "
                f"hot window [boundary, MaxKey) of zone {fh.hot} ({where})"
            )
            problems.append(_error("ZP203", c.entry.position, message))
    return problems


def _type_fits_field(coll: CollectionEntry, fh: FirehoseModel) -> list[Diagnostic]:
    """ZP410: an ObjectId window on a field other than `_id`, or a time type on `_id`. The
    boundary is written in the window's type, and BSON orders types apart, so a boundary of
    the wrong type sits below or above every real value (docs/analyze.md)."""
    if fh.type == "objectId" and fh.field != "_id":
        message = (
            f'firehose type objectId on field "{fh.field}": ObjectIds are normally only in '
            "_id; if the field holds dates or numbers the window never moves any data"
        )
        hint = "use type: date (or epochSeconds/epochMillis) to match what the field holds"
    elif fh.type != "objectId" and fh.field == "_id":
        message = (
            f"firehose type {fh.type} on _id: _id holds ObjectIds unless the application "
            f"sets it, and an ObjectId never falls inside a {fh.type} window"
        )
        hint = "use type: objectId, unless your _id values really are " + fh.type
    else:
        return []
    return [Diagnostic("ZP410", Severity.WARNING, coll.at("firehose", "type"), message, hint)]


def _schedule(coll: CollectionEntry, fh: FirehoseModel) -> list[Diagnostic]:
    from zonectl.firehose import validate_schedule

    problems: list[Diagnostic] = []
    # A schedule that surely parses isolates the time zone's verdict, and UTC the cron's.
    if validate_schedule("0 0 * * *", fh.timezone) is not None:
        close = difflib.get_close_matches(fh.timezone, sorted(_timezones()), n=1)
        hint = f'did you mean "{close[0]}"?' if close else 'use an IANA name such as "UTC"'
        message = f'timezone "{fh.timezone}" is not a known IANA time zone'
        problems.append(_error("ZP406", coll.at("firehose", "timezone"), message, hint))
    problem = validate_schedule(fh.schedule, "UTC")
    if problem is not None:
        code = "ZP405" if "never fires" in problem else "ZP404"
        problems.append(_error(code, coll.at("firehose", "schedule"), f"schedule: {problem}"))
    return problems


def _ranges(n: int) -> str:
    return "its range" if n == 1 else f"all {n} of its ranges"


def _timezones() -> set[str]:
    try:
        return zoneinfo.available_timezones()
    except Exception:  # no tz database to list: no suggestion, the error still stands
        return set()


def _error(code: str, where: Position, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, where, message, hint)
