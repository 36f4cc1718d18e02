"""The forecast's chunks of one namespace, read where the change is, never every chunk: per
zone range (as it will be once the plan ran), a changed range's chunks off the zone's shards
by one indexed query on config.chunks (`{uuid, shard: {$nin: zone shards}, min in range}`,
the {uuid, shard, min} index) plus the chunk straddling its min; an unchanged range only by
indexed counts per shard. Bytes come from ChunkSizes, the one size source. The queries go
through the run's ChunkBatch: the caller replays all namespaces in a few aggregates."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.inputs import Range, cut_keyed
from zonectl.model.chunk_match import Chunks, kept_fields
from zonectl.model.keys import SortKey, sort_key
from zonectl.mongo.chunk_batch import straddling, straddling_in
from zonectl.mongo.chunk_sizes import ChunkSizes

_FIELDS = {"_id": 0, "min": 1, "max": 1, "shard": 1, "jumbo": 1}
_KEEP = kept_fields(_FIELDS)
RangeKey = tuple[SortKey, SortKey]
_NO_ZONES: frozenset[str] = frozenset()


def range_key(lo: Mapping[str, Any], hi: Mapping[str, Any]) -> RangeKey:
    return sort_key(lo), sort_key(hi)


class ZoneHolders(dict[str, list[str]]):
    """Each zone's shards, sorted: worked out once per zone for every namespace read."""

    def __init__(self, shard_zones: Mapping[str, frozenset[str]]) -> None:
        super().__init__()
        self.shard_zones = shard_zones

    def __missing__(self, zone: str) -> list[str]:
        found = self[zone] = sorted(s for s, zones in self.shard_zones.items() if zone in zones)
        return found


def read_namespace_chunks(
    sizes: ChunkSizes,
    ns: str,
    ranges: Sequence[Range],
    shard_zones: Mapping[str, frozenset[str]],
    shards: Sequence[str],
    changed: Collection[RangeKey],
    *,
    holders_of: ZoneHolders | None = None,
) -> NamespaceChunks | None:
    """The chunks of `ns` outside their zone (None when not sharded), with the whole
    collection's bytes and chunks per shard. `shards`: every shard (draining ones too);
    `changed`: the ranges whose chunks are read one by one (and measured); `holders_of`:
    ZoneHolders(shard_zones), when the caller reads many namespaces. Each bound's key is
    computed once and carried to the pieces (tests/forecast_pure/test_read_differential.py
    holds this to its earlier form)."""
    base = sizes.chunk_filter(ns)
    if base is None:
        return None
    if holders_of is None:
        holders_of = ZoneHolders(shard_zones)
    counts = sizes.shard_counts(ns, shards)
    out = NamespaceChunks(ns, [], [], [], counts=counts)
    tally = [0, 0, 0]  # measured, estimated, assumed: counted once the read is real
    candidates: dict[SortKey, tuple[Mapping[str, Any], SortKey]] = {}  # min key -> doc, max
    wanted: list[RangeKey] = []  # the changed ranges' keys
    range_keys: list[RangeKey] = []
    find = sizes.batch.find
    # A namespace read whole: its table, asked directly (the questions below, answered the
    # same). Looked up where the first of them would: after the counts, when there is one.
    table = sizes.batch.table(base) if ranges and _KEEP is not None else None
    for lo, hi, zone in ranges:
        holders = holders_of[zone]
        if changed:  # the keys only serve to find the changed ranges and cut their chunks
            key = range_key(lo, hi)
            range_keys.append(key)
        is_changed = bool(changed) and key in changed
        if is_changed:
            wanted.append(key)
        off_zone: dict[str, Any] | None = None
        in_range: dict[str, int] = {}  # from the table: shard -> its chunks in the range
        if table is not None and _KEEP is not None:
            bounds = key if changed else range_key(lo, hi)
            if is_changed:
                _table_candidates(candidates, table, _KEEP, lo, bounds, holders)
                continue
            in_range = table.shards_in(*bounds)
            if not any(n for s, n in in_range.items() if s not in holders):
                continue
        else:
            off_zone = {**base, "shard": {"$nin": holders}, "min": {"$gte": lo, "$lt": hi}}
            if is_changed:
                for doc in find(off_zone, _FIELDS, sort={"min": 1}):
                    candidates[sort_key(doc["min"])] = (doc, sort_key(doc["max"]))
                for doc in straddling(sizes.batch, base, lo, _FIELDS, inclusive=False):
                    if doc["shard"] not in holders:
                        candidates[sort_key(doc["min"])] = (doc, sort_key(doc["max"]))
                continue
            if not sizes.count(off_zone):
                continue
        # Unchanged: how many chunks sit off the zone, per shard; each sized by the
        # estimate (the balancer split them at the range's bounds already).
        for shard in shards:
            if shard in holders or not counts.get(shard):
                continue
            if off_zone is None:
                n = in_range.get(shard, 0)
            else:
                n = sizes.count({**off_zone, "shard": shard})
            size, estimated = sizes.estimate(ns, shard, shards)
            tally[1 if estimated else 2] += n
            for _ in range(n):
                _add(out, shard, size, zone, False, estimated=estimated)
    if candidates:
        ordered = [(doc, k, hi) for k, (doc, hi) in sorted(candidates.items())]
        pieces = [
            p
            for p, a, b in cut_keyed(ordered, ranges, range_keys)
            if p.zone is not None
            and p.zone not in shard_zones.get(p.shard, _NO_ZONES)
            and _within((a, b), wanted)
        ]
    else:
        pieces = []
    measured = sizes.measure(ns, [(p.min, p.max) for p in pieces]) if pieces else []
    estimates: dict[str, tuple[int, bool]] = {}  # shard -> its estimate, asked once
    for piece, found in zip(pieces, measured, strict=True):
        known = estimates.get(piece.shard)
        if known is None:
            known = estimates[piece.shard] = sizes.estimate(ns, piece.shard, shards)
        whole, estimated = known
        average = int(whole * piece.share)
        if found is None:
            tally[1 if estimated else 2] += 1
            _add(out, piece.shard, average, piece.zone, piece.jumbo, estimated=estimated)
            continue
        tally[0] += 1
        if estimated and average > 0 and not piece.jumbo:  # the spread around the average
            out.samples.append((found, average))
        _add(out, piece.shard, found, piece.zone, piece.jumbo)
    if any(tally):
        _tally(sizes, *tally)
    out.loads = _loads(sizes, ns, shards, counts)
    out.max_chunk_bytes = sizes.move_cap(ns) if sizes.by_data_size else None
    return out


def _table_candidates(
    candidates: dict[SortKey, tuple[Mapping[str, Any], SortKey]],
    table: Chunks,
    keep: frozenset[str],
    lo: Mapping[str, Any],
    bounds: RangeKey,
    holders: Sequence[str],
) -> None:
    """A changed range's chunks off its zone's shards and the one straddling its min (when
    off them too), from the namespace's table, keyed by their own keys."""
    places = table.places_in(*bounds, off=holders)
    for at, doc in zip(places, table.docs(places, keep), strict=True):
        candidates[table.min_key(at)] = (doc, table.max_key(at))
    for doc in straddling_in(table, lo, bounds[0], keep, inclusive=False):
        if doc["shard"] not in holders:
            candidates[sort_key(doc["min"])] = (doc, sort_key(doc["max"]))


def _within(piece: RangeKey, ranges: Sequence[RangeKey]) -> bool:
    """The piece lies inside one of the ranges."""
    lo, hi = piece
    return any(a <= lo and hi <= b for a, b in ranges)


def _loads(
    sizes: ChunkSizes, ns: str, shards: Sequence[str], counts: Mapping[str, int]
) -> dict[str, int]:
    """Bytes of `ns` per shard: the statistics, else its chunk count times the estimate."""
    owned = sizes.shard_bytes(ns)
    if owned is not None:
        return {s: owned.get(s, 0) for s in shards}
    return {s: counts.get(s, 0) * sizes.estimate(ns, s, shards)[0] for s in shards}


def _add(
    out: NamespaceChunks,
    shard: str,
    size: int,
    zone: str | None,
    jumbo: bool,
    *,
    estimated: bool = False,
) -> None:
    if jumbo:
        out.jumbo.add(len(out.shards))
    elif estimated:
        out.estimated.add(len(out.shards))
    out.shards.append(shard)
    out.sizes.append(size)
    out.zones.append(zone)


def _tally(sizes: ChunkSizes, measured: int, estimated: int, assumed: int) -> None:
    tally = sizes.tally

    def count() -> None:
        tally.measured += measured
        tally.estimated += estimated
        tally.assumed += assumed

    sizes.batch.when_real(count)  # a rehearsal of the reads (ChunkBatch.replay): if kept
