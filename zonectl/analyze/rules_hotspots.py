"""Where inserts land, per shard (ZA131). An ascending key sends every insert to its MaxKey
chunk; a compound key `{bucket: 1, ts: 1}` whose suffix ascends sends the inserts of each
prefix value to that value's top chunk, so the shards owning those top chunks take the
writes and the others take none. The fix spreads the prefix values over one zone per shard,
as a policy snippet. Inserts are not among the commands MongoDB samples (find, aggregate,
count, distinct, update, delete, findAndModify), so this reads the key and the chunk map."""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bson import ObjectId, Timestamp
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.analyze.inputs import ChunkInfo, CollectionInput
from zonectl.analyze.policy_text import ranges_snippet
from zonectl.analyze.report import Figure, Finding, Severity
from zonectl.analyze.rules_zone import zone_of
from zonectl.model.cluster import ClusterState
from zonectl.model.keys import SortKey, global_max, is_max_key, is_min_key, sort_key


@dataclass(frozen=True)
class InsertPoints:
    """Top chunks per shard: `owners` shard -> prefix values whose newest chunk it owns
    (one entry "MaxKey" for an ascending key); `idle` the shards that own none."""

    field: str | None  # the prefix field; None for an ascending key (one insert point)
    values: tuple[Any, ...]  # prefix values seen in the chunk bounds, in BSON order
    owners: Mapping[str, tuple[Any, ...]]
    idle: tuple[str, ...]


def _ascending_type(value: Any) -> bool:
    return isinstance(value, dt.datetime | ObjectId | Timestamp)


def _real(value: Any) -> bool:
    return value is not None and not is_min_key(value) and not is_max_key(value)


def eligible_shards(state: ClusterState, coll: CollectionInput | None = None) -> list[str]:
    """The shards that may hold the collection's chunks: those not draining, and when its
    live zone ranges cover every chunk, only the shards of those zones (a pinned
    collection's other shards are not idle, they are not its)."""
    shards = sorted(s.id for s in state.shards if not s.draining)
    ranges = state.ranges_of(coll.namespace) if coll is not None else ()
    if not ranges or coll is None or not coll.chunks:
        return shards
    if any(zone_of(c, ranges) is None for c in coll.chunks):
        return shards
    zones = {r.zone for r in ranges}
    allowed = {s.id for s in state.shards if zones & set(s.zones)}
    return [s for s in shards if s in allowed]


def insert_points(coll: CollectionInput, state: ClusterState) -> InsertPoints | None:
    """None when the key's shape says nothing about where inserts go (hashed, no evidence
    that it ascends), or there are no chunks."""
    key = coll.key
    if not key or not coll.chunks or "hashed" in key.values():
        return None
    fields = list(key)
    shards = eligible_shards(state, coll)
    first = fields[0]
    if _first_ascends(coll, first):
        top = coll.chunks[-1].shard
        return InsertPoints(None, (), {top: ("MaxKey",)}, tuple(s for s in shards if s != top))
    if len(fields) < 2 or not _suffix_ascends(coll.chunks, fields[1]):
        return None
    values = _prefix_values(coll.chunks, first)
    if not values:
        return None
    mins = [sort_key(dict(c.min)) for c in coll.chunks]
    owners: dict[str, list[Any]] = {}
    for value in values:
        chunk = _top_chunk(coll.chunks, mins, key, first, value)
        owners.setdefault(chunk.shard, []).append(value)
    idle = tuple(s for s in shards if s not in owners)
    return InsertPoints(first, tuple(values), {s: tuple(v) for s, v in owners.items()}, idle)


def _first_ascends(coll: CollectionInput, first: str) -> bool:
    m = coll.metrics
    if m is not None and m.monotonicity == "monotonic":
        return m.coefficient is None or m.coefficient >= 0
    seen = [c.min.get(first) for c in coll.chunks if _real(c.min.get(first))]
    return bool(seen) and all(_ascending_type(v) for v in seen)


def _suffix_ascends(chunks: Sequence[ChunkInfo], second: str) -> bool:
    """Evidence in the chunk bounds: every real value of the second field is a date, an
    ObjectId or a timestamp (values that only grow)."""
    seen = [b.get(second) for c in chunks for b in (c.min, c.max) if _real(b.get(second))]
    return bool(seen) and all(_ascending_type(v) for v in seen)


def _prefix_values(chunks: Sequence[ChunkInfo], first: str) -> list[Any]:
    found: dict[SortKey, Any] = {}
    for c in chunks:
        for bound in (c.min, c.max):
            value = bound.get(first)
            if _real(value):
                found.setdefault(sort_key(value), value)
    return [found[k] for k in sorted(found)]


def _top_chunk(
    chunks: Sequence[ChunkInfo],
    mins: list[SortKey],
    key: Mapping[str, Any],
    first: str,
    value: Any,
) -> ChunkInfo:
    """The chunk holding the greatest keys of `value`: the last whose min is below
    {first: value, rest: MaxKey}."""
    top = {**global_max(key), first: value}
    i = bisect.bisect_left(mins, sort_key(top)) - 1
    return chunks[max(i, 0)]


def insert_figure(points: InsertPoints) -> Figure:
    if points.field is None:
        shard = next(iter(points.owners))
        value = f"the MaxKey chunk, on {shard}"
    else:
        per = ", ".join(f"{s} {len(v)}" for s, v in sorted(points.owners.items()))
        value = f"top chunks of {len(points.values)} {points.field} value(s): {per}"
    if points.idle:
        value += f"; no inserts on {', '.join(points.idle)}"
    return Figure("insert points", value, "config metadata", "medium")


def hotspot_rule(
    coll: CollectionInput, points: InsertPoints | None, shards: Sequence[str]
) -> list[Finding]:
    """ZA131: a compound key with an ascending suffix whose prefix values' top chunks sit
    on fewer shards than there are (an ascending key alone is ZA103's)."""
    if points is None or points.field is None or not points.idle or len(shards) < 2:
        return []
    field = points.field
    owners = sorted(points.owners)
    shown = ", ".join(f"{s} ({len(points.owners[s])})" for s in owners)
    evidence = (
        f"the newest chunks of {len(points.values)} {field} value(s) sit on "
        f"{len(owners)} of {len(shards)} shards: {shown}; {', '.join(points.idle)} "
        f"take no inserts"
    )
    if len(points.values) < len(shards):
        evidence += (
            f"; {len(points.values)} value(s) of {field} cannot keep {len(shards)} shards writing"
        )
    return [
        Finding(
            "ZA131",
            "insert-points-on-few-shards",
            Severity.WARNING,
            coll.namespace,
            evidence,
            f"Give each shard a zone holding whole {field} values (the snippet below: "
            "merge it into the policy), then `zonectl apply --migrate` so every shard "
            "owns some values' newest chunks.",
            "config metadata",
            snippet=spread_snippet(coll, points, shards),
        )
    ]


def spread_snippet(coll: CollectionInput, points: InsertPoints, shards: Sequence[str]) -> str:
    """One zone per shard, each owning a contiguous run of the prefix values, the runs
    together covering the key space from MinKey to MaxKey (`partition:` says so)."""
    assert coll.key is not None and points.field is not None
    field = points.field
    values = list(points.values)
    groups = min(len(shards), len(values))
    starts = [values[(i * len(values)) // groups] for i in range(groups)]
    zones = [(shards[i], f"{field}-{shards[i]}") for i in range(groups)]
    ranges = []
    for i in range(groups):
        lo = {field: MinKey() if i == 0 else starts[i]}
        hi = {field: MaxKey() if i == groups - 1 else starts[i + 1]}
        ranges.append((zones[i][1], lo, hi))
    return ranges_snippet(coll.namespace, coll.key, zones, ranges, partition=field)
