"""The desired zone ranges of one namespace, as config.tags would store them, with the
plan-time checks that need the live shard key (prefix, hashed fields, order, overlap)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.diagnostics import Position
from zonectl.model.cluster import ClusterState, LiveRange
from zonectl.model.desired import CollectionPolicy, DesiredState
from zonectl.model.keys import (
    bson_equal,
    compare,
    format_value,
    global_max,
    global_min,
    is_number_long,
    is_prefix_of,
    pad_bound,
    sort_key,
)
from zonectl.plan.ops import AssignZoneRange, Op, RemoveZoneRange, format_range

KeyPattern = Mapping[str, Any]


@dataclass(frozen=True)
class WantedRange:
    zone: str
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    position: Position | None = field(default=None, compare=False)


@dataclass
class Problems:
    """Accumulated plan-time errors and warnings, each prefixed with its policy position."""

    fallback: str = "policy"
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def where(self, position: Position | None) -> str:
        return str(position) if position is not None else self.fallback

    def error(self, position: Position | None, message: str) -> None:
        self.errors.append(f"{self.where(position)}: {message}")

    def warn(self, position: Position | None, message: str) -> None:
        self.warnings.append(f"{self.where(position)}: {message}")


def same_key(a: KeyPattern, b: KeyPattern) -> bool:
    """Same fields in the same order with equal values (1 == 1.0; "hashed" only itself)."""
    return list(a) == list(b) and all(bson_equal(a[f], b[f]) for f in a)


def hashed_fields(key: KeyPattern) -> list[str]:
    return [f for f, v in key.items() if v == "hashed"]


def wanted_ranges(
    cp: CollectionPolicy,
    key: KeyPattern | None,
    boundary: Any,
    problems: Problems,
) -> list[WantedRange]:
    """Explicit ranges, the pin and the firehose window of `cp`, padded to `key`.

    With no key (an unsharded namespace and no `key:` in the policy) explicit bounds are
    kept as given, as the config server stores them for unsharded namespaces (§1.5 (a));
    a window cannot be expressed without a key, and a pin without one is no range at all:
    it moves the whole collection (`zonectl.plan.unsharded`, 8.0's moveCollection).
    """
    out: list[WantedRange] = []
    for r in cp.ranges:
        pos = r.position or cp.position
        if key is None:
            if list(r.min) != list(r.max):
                problems.error(pos, f"{cp.namespace}: min and max of a range name different fields")
                continue
            out.append(WantedRange(r.zone, dict(r.min), dict(r.max), pos))
            continue
        if not (is_prefix_of(r.min, key) and is_prefix_of(r.max, key)):
            problems.error(
                pos,
                f"{cp.namespace}: range {format_range(r.min, r.max)} is not a prefix of "
                f"the shard key {format_value(key)}",
            )
            continue
        out.append(WantedRange(r.zone, pad_bound(r.min, key), pad_bound(r.max, key), pos))
    if cp.firehose and key is None:
        problems.error(
            cp.position,
            f"{cp.namespace} is not sharded and the policy gives no key: "
            "a window needs the shard key; add `key:`",
        )
        return out
    if cp.pin and key is not None:
        out.append(WantedRange(cp.pin, global_min(key), global_max(key), cp.position))
    if cp.firehose and key is not None:
        out.extend(_window_ranges(cp, key, boundary, problems))
    return out


def _window_ranges(
    cp: CollectionPolicy, key: KeyPattern, boundary: Any, problems: Problems
) -> list[WantedRange]:
    fh = cp.firehose
    assert fh is not None
    pos = fh.position or cp.position
    # A window is one contiguous split of the key space only when its field leads the key.
    if next(iter(key)) != fh.field:
        problems.error(
            pos,
            f"{cp.namespace}: firehose field {fh.field!r} is not the first field of the "
            f"shard key {format_value(key)}",
        )
        return []
    if boundary is None:
        problems.error(pos, f"{cp.namespace}: no window boundary was computed for this instant")
        return []
    split = pad_bound({fh.field: boundary}, key)
    if isinstance(boundary, MinKey | MaxKey):
        problems.error(pos, f"{cp.namespace}: window boundary {format_value(boundary)}")
        return []
    out = [WantedRange(fh.hot, split, global_max(key), pos)]
    if fh.cold:
        out.insert(0, WantedRange(fh.cold, global_min(key), split, pos))
    return out


def check_ranges(
    namespace: str, key: KeyPattern | None, ranges: list[WantedRange], problems: Problems
) -> list[WantedRange]:
    """min < max, NumberLong bounds on hashed fields (§1.5 (c)), no overlaps (§1.5 (d)).
    Returns the ranges sorted by BSON order of min."""
    hashed = hashed_fields(key) if key is not None else []
    for r in ranges:
        if compare(r.min, r.max) >= 0:
            problems.error(
                r.position, f"{namespace}: range {format_range(r.min, r.max)} has min >= max"
            )
        for f in hashed:
            for bound in (r.min, r.max):
                v = bound.get(f)
                if not (is_number_long(v) or isinstance(v, MinKey | MaxKey)):
                    problems.error(
                        r.position,
                        f"{namespace}: hashed field {f!r} needs NumberLong, MinKey or MaxKey "
                        f"bounds, got {format_value(v)}",
                    )
    # One range (a pin, most namespaces) is its own order: no keys to compute.
    ordered = (
        sorted(ranges, key=lambda r: (sort_key(r.min), sort_key(r.max), r.zone))
        if len(ranges) > 1
        else list(ranges)
    )
    for a, b in itertools.pairwise(ordered):
        if compare(b.min, a.max) < 0:
            problems.error(
                b.position,
                f"{namespace}: range {format_range(b.min, b.max)} of zone {b.zone} overlaps "
                f"{format_range(a.min, a.max)} of zone {a.zone}",
            )
    return ordered


def namespace_ranges(
    desired: DesiredState,
    actual: ClusterState,
    ns: str,
    boundaries: Mapping[str, Any],
    problems: Problems,
    new_key: Mapping[str, Any] | None = None,
) -> list[WantedRange]:
    """The policy's ranges in `new_key` (a planned key change) or else the live key."""
    cp = desired.collections[ns]
    live = actual.collections.get(ns)
    known = new_key is None and live is not None and cp.key is not None
    if known and live is not None and cp.key is not None and not same_key(cp.key, live.key):
        return []  # a resharding to another key is running: classify() said so
    key = new_key if new_key is not None else live.key if live is not None else cp.key
    wanted = wanted_ranges(cp, key, boundaries.get(ns), problems)
    if live is None and wanted:
        problems.warn(
            cp.position,
            f"{ns} is not sharded: its ranges are planned and will apply when it is sharded",
        )
    return check_ranges(ns, key, wanted, problems)


def diff_ranges(ns: str, wanted: list[WantedRange], live: tuple[LiveRange, ...]) -> list[Op]:
    """Removals (exact live bounds) then additions, each in BSON order of min.

    Ranges match on (min, max, zone) compared in BSON order (numbers by value), so a live
    range with identical bounds but another zone is removed and re-added."""

    # Each range's identity computed once: it decides both the match and the order.
    wanted_ids = [(sort_key(r.min), sort_key(r.max), r.zone) for r in wanted]
    live_ids = [(sort_key(r.min), sort_key(r.max), r.zone) for r in live]
    wanted_set, live_set = set(wanted_ids), set(live_ids)
    gone = sorted(
        ((i, r) for i, r in zip(live_ids, live, strict=True) if i not in wanted_set),
        key=_first,
    )
    new = sorted(
        ((i, r) for i, r in zip(wanted_ids, wanted, strict=True) if i not in live_set),
        key=_first,
    )
    removals: list[Op] = [RemoveZoneRange(ns, r.zone, r.min, r.max) for _, r in gone]
    additions: list[Op] = [AssignZoneRange(ns, r.zone, r.min, r.max) for _, r in new]
    return [*removals, *additions]


def _first(pair: tuple[tuple[Any, ...], Any]) -> tuple[Any, ...]:
    return pair[0]
