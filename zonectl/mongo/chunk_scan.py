"""zonectl's own compliance check: one streaming pass over a namespace's chunks (sorted by
min) merged with its zone ranges (sorted), never a list of all chunks (reference §5.2)."""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import bson
from bson import Int64, ObjectId
from bson.max_key import MaxKey
from bson.min_key import MinKey
from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import LiveRange
from zonectl.model.keys import SortKey, sort_key
from zonectl.model.layout import IN_PLACE, OUTSIDE, STRADDLING, ChunkLayout
from zonectl.mongo.connect import Connection

# Only what the walk reads; `jumbo` is present only when true (reference §2.3).
PROJECTION = {"_id": 0, "min": 1, "max": 1, "shard": 1, "jumbo": 1}
# Decoded documents of one batch are held at once. benchmarks/bench_status.py, 100,000
# chunks: 1,000 / 10,000 / 100,000 per batch gave 54k / 66k / 47k docs per client CPU
# second and +0 / +3 / +131 MiB peak RSS; 10,000 is the fastest at a few MiB.
BATCH_SIZE = 10_000

# Python types whose `<` agrees with MongoDB's order within their canonical type rank
# (keys.py): the walk compares the leading key field with these before falling back to
# the full BSON sort key, which is what keeps the pass near the raw decode rate.
_FAST_RANK: dict[type, int] = {
    int: 10,
    Int64: 10,
    float: 10,
    bool: 40,
    str: 15,
    ObjectId: 35,
    dt.datetime: 45,
    MinKey: -1,
    MaxKey: 127,
}
_NO_VALUE = (-1, 127)  # MinKey/MaxKey: the leading fields tie, compare the rest


@dataclass(frozen=True)
class Example:
    """One offending chunk, for the report (the first one in key order)."""

    min: Mapping[str, Any]
    max: Mapping[str, Any]
    shard: str
    zone: str | None = None


@dataclass
class ChunkCompliance:
    """What one pass found. Outside = the chunk lies wholly in a range of zone Z and its
    shard does not carry Z; straddling = a range boundary falls strictly inside it (such a
    chunk belongs to no zone until it is split, §5.2)."""

    chunks: int = 0
    per_shard: dict[str, int] = field(default_factory=dict)
    per_zone: dict[str, int] = field(default_factory=dict)  # chunks wholly inside a zone
    outside_zone: int = 0
    outside_per_shard: dict[str, int] = field(default_factory=dict)  # shard -> outside chunks
    straddling: int = 0
    jumbo: int = 0
    first_outside: Example | None = None
    first_straddling: Example | None = None
    # (shard, zone) -> [chunks, jumbo chunks]; zone None: no zone, straddling ones included
    # (the balancer's DistributionStatus counts, for zonectl explain).
    tally: dict[tuple[str, str | None], list[int]] = field(default_factory=dict)


class _Boundaries:
    """The distinct range bounds in BSON order, with the zone of each gap between them."""

    def __init__(self, ranges: Sequence[LiveRange], first_field: str) -> None:
        keyed: dict[SortKey, Mapping[str, Any]] = {}
        for r in ranges:
            keyed.setdefault(sort_key(r.min), r.min)
            keyed.setdefault(sort_key(r.max), r.max)
        self.keys = sorted(keyed)
        self.first = first_field
        self.ranks: list[int | None] = []
        self.values: list[Any] = []
        for key in self.keys:
            value = keyed[key].get(first_field)
            self.ranks.append(_FAST_RANK.get(type(value)) if first_field in keyed[key] else None)
            self.values.append(value)
        # zones[k]: zone of [keys[k], keys[k+1]); a range spans consecutive gaps.
        self.zones: list[str | None] = [None] * len(self.keys)
        for r in ranges:
            lo = bisect.bisect_left(self.keys, sort_key(r.min))
            hi = bisect.bisect_left(self.keys, sort_key(r.max))
            for k in range(lo, hi):
                self.zones[k] = r.zone

    def compare(self, doc: Mapping[str, Any], k: int) -> int:
        """-1, 0, 1 as `doc` orders against boundary k."""
        value = doc.get(self.first)
        rank = _FAST_RANK.get(type(value))
        bound_rank = self.ranks[k]
        if rank is not None and bound_rank is not None:
            if rank != bound_rank:
                return -1 if rank < bound_rank else 1
            if rank not in _NO_VALUE:
                try:
                    if value < self.values[k]:
                        return -1
                    if value > self.values[k]:
                        return 1
                except TypeError:  # e.g. naive vs aware datetime: let sort_key decide
                    pass
        full = sort_key(doc)
        bound = self.keys[k]
        return (full > bound) - (full < bound)

    def count_at_or_below(self, doc: Mapping[str, Any]) -> int:
        """How many boundaries are <= doc (bisect with the full order)."""
        return bisect.bisect_right(self.keys, sort_key(doc))


def scan_compliance(
    chunks: Iterable[Mapping[str, Any]],
    ranges: Sequence[LiveRange],
    shard_zones: Mapping[str, Iterable[str]],
    first_field: str,
    *,
    layout: ChunkLayout | None = None,
) -> ChunkCompliance:
    """Merge-walk `chunks` (sorted by min) against `ranges`. Pure; O(chunks + ranges).
    With `layout`, also record each chunk's shard and standing there (status's pictures).

    Chunks tile the key space, so chunk i's min is chunk i-1's max and the position found
    for one max carries over to the next min: one comparison per chunk in the common case.
    A chunk that does not continue the previous one is located afresh by bisection."""
    bounds = _Boundaries(ranges, first_field)
    zones_of = {shard: frozenset(zones) for shard, zones in shard_zones.items()}
    empty: frozenset[str] = frozenset()
    m = len(bounds.keys)
    result = ChunkCompliance()
    per_shard = result.per_shard
    per_zone = result.per_zone
    tally = result.tally
    prev_max: Any = None
    cmax: Any = None
    below = 0  # boundaries < the previous chunk's max
    equal = False  # ... and whether boundary `below` equals it
    for doc in chunks:
        cmin, cmax, shard = doc["min"], doc["max"], doc["shard"]
        result.chunks += 1
        per_shard[shard] = per_shard.get(shard, 0) + 1
        jumbo = 1 if doc.get("jumbo") else 0
        result.jumbo += jumbo
        if m == 0:
            _count(tally, shard, None, jumbo)
            if layout is not None:
                layout.add(shard, IN_PLACE, None, cmin)
            continue
        # Python's == agrees with BSON equality here except bool vs number (True == 1),
        # which can only matter after a skipped chunk; the server's bounds are the same bytes.
        if prev_max is not None and cmin == prev_max:
            at_or_below_min = below + equal
        else:
            at_or_below_min = bounds.count_at_or_below(cmin)
            below = at_or_below_min
        c = 1
        while below < m:
            c = bounds.compare(cmax, below)
            if c <= 0:
                break
            below += 1
        equal = below < m and c == 0
        prev_max = cmax
        if below > at_or_below_min:  # a boundary strictly inside (cmin, cmax)
            result.straddling += 1
            _count(tally, shard, None, jumbo)
            if result.first_straddling is None:
                result.first_straddling = Example(cmin, cmax, shard)
            if layout is not None:
                layout.add(shard, STRADDLING, None, cmin)
            continue
        zone = bounds.zones[at_or_below_min - 1] if at_or_below_min else None
        _count(tally, shard, zone, jumbo)
        kind = IN_PLACE
        if zone is not None:
            per_zone[zone] = per_zone.get(zone, 0) + 1
            if zone not in zones_of.get(shard, empty):
                kind = OUTSIDE
                result.outside_zone += 1
                result.outside_per_shard[shard] = result.outside_per_shard.get(shard, 0) + 1
                if result.first_outside is None:
                    result.first_outside = Example(cmin, cmax, shard, zone)
        if layout is not None:
            layout.add(shard, kind, zone, cmin)
    if layout is not None:
        layout.last_max = cmax
    return result


def _count(
    tally: dict[tuple[str, str | None], list[int]], shard: str, zone: str | None, jumbo: int
) -> None:
    counts = tally.get((shard, zone))
    if counts is None:
        tally[(shard, zone)] = [1, jumbo]
    else:
        counts[0] += 1
        counts[1] += jumbo


def chunk_filter(collection: Mapping[str, Any], version: str) -> dict[str, Any]:
    """config.chunks selects a collection by `uuid` from 5.0 and by `ns` in 4.4; an entry with
    a `timestamp` means the uuid form even mid-upgrade (reference §2.3)."""
    major = int(version.split(".")[0]) if version[:1].isdigit() else 7
    uuid = collection.get("uuid")
    if uuid is not None and ("timestamp" in collection or major >= 5):
        return {"uuid": uuid}
    return {"ns": collection["_id"]}


def stream_chunks(
    conn: Connection, where: Mapping[str, Any], *, batch_size: int = BATCH_SIZE
) -> Iterator[Mapping[str, Any]]:
    """The chunks `where` selects, sorted by min (the unique {uuid|ns, min} index serves the
    sort), decoded one batch at a time."""
    options = conn.client.codec_options
    cursor = conn.client.config.chunks.find_raw_batches(
        dict(where), PROJECTION, sort=[("min", 1)], batch_size=batch_size
    )
    try:
        for raw in cursor:
            yield from bson.decode_all(cast(bytes, raw), options)  # raw batch bytes
    finally:
        cursor.close()


def read_chunk_compliance(
    conn: Connection,
    collection: Mapping[str, Any],
    ranges: Sequence[LiveRange],
    shard_zones: Mapping[str, Iterable[str]],
    *,
    layout: ChunkLayout | None = None,
) -> ChunkCompliance:
    """One streaming pass over the chunks of the sharded collection `collection` (its
    config.collections entry)."""
    first_field = next(iter(collection["key"]))
    where = chunk_filter(collection, conn.version)
    try:
        chunks = stream_chunks(conn, where)
        return scan_compliance(chunks, ranges, shard_zones, first_field, layout=layout)
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading the chunks of {collection['_id']} failed: {redact(str(exc))}"
        ) from None
