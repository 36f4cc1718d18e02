"""read_namespace_chunks as it was before it kept each bound's key and each zone's shards
(zonectl/mongo/forecast_read.py at c841517): the reference tests/forecast_pure/
test_read_differential.py holds the current one to. Verbatim but for the name."""

# ruff: noqa
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.inputs import Range, make_pieces
from zonectl.model.keys import SortKey, sort_key
from zonectl.mongo.chunk_batch import straddling
from zonectl.mongo.chunk_sizes import ChunkSizes
from zonectl.mongo.forecast_read import RangeKey, range_key

_FIELDS = {"_id": 0, "min": 1, "max": 1, "shard": 1, "jumbo": 1}


def reference_read_namespace_chunks(
    sizes: ChunkSizes,
    ns: str,
    ranges: Sequence[Range],
    shard_zones: Mapping[str, frozenset[str]],
    shards: Sequence[str],
    changed: Collection[RangeKey],
) -> NamespaceChunks | None:
    """The chunks of `ns` outside their zone (None when not sharded), with the whole
    collection's bytes and chunks per shard. `shards`: every shard (draining ones too);
    `changed`: the ranges whose chunks are read one by one (and measured)."""
    base = sizes.chunk_filter(ns)
    if base is None:
        return None
    counts = sizes.shard_counts(ns, shards)
    out = NamespaceChunks(ns, [], [], [], counts=counts)
    candidates: dict[SortKey, Mapping[str, Any]] = {}
    wanted: list[RangeKey] = []  # the changed ranges' keys
    for lo, hi, zone in ranges:
        holders = sorted(s for s, zones in shard_zones.items() if zone in zones)
        off_zone = {**base, "shard": {"$nin": holders}, "min": {"$gte": lo, "$lt": hi}}
        key = range_key(lo, hi)
        if key in changed:
            wanted.append(key)
            for doc in sizes.batch.find(off_zone, _FIELDS, sort={"min": 1}):
                candidates[sort_key(doc["min"])] = doc
            for doc in straddling(sizes.batch, base, lo, _FIELDS, inclusive=False):
                if doc["shard"] not in holders:
                    candidates[sort_key(doc["min"])] = doc
        elif sizes.count(off_zone):
            # Unchanged: how many chunks sit off the zone, per shard; each sized by the
            # estimate (the balancer split them at the range's bounds already).
            for shard in shards:
                if shard in holders or not counts.get(shard):
                    continue
                n = sizes.count({**off_zone, "shard": shard})
                size, estimated = sizes.estimate(ns, shard, shards)
                _tally(sizes, n, measured=False, estimated=estimated)
                for _ in range(n):
                    _add(out, shard, size, zone, False, estimated=estimated)
    ordered = [candidates[k] for k in sorted(candidates)]
    pieces = [
        p
        for p in make_pieces(ordered, ranges)
        if p.zone is not None
        and p.zone not in shard_zones.get(p.shard, frozenset())
        and _within(range_key(p.min, p.max), wanted)
    ]
    measured = sizes.measure(ns, [(p.min, p.max) for p in pieces])
    for piece, found in zip(pieces, measured, strict=True):
        whole, estimated = sizes.estimate(ns, piece.shard, shards)
        average = int(whole * piece.share)
        if found is None:
            _tally(sizes, 1, measured=False, estimated=estimated)
            _add(out, piece.shard, average, piece.zone, piece.jumbo, estimated=estimated)
            continue
        _tally(sizes, 1, measured=True, estimated=False)
        if estimated and average > 0 and not piece.jumbo:  # the spread around the average
            out.samples.append((found, average))
        _add(out, piece.shard, found, piece.zone, piece.jumbo)
    out.loads = _loads(sizes, ns, shards, counts)
    out.max_chunk_bytes = sizes.move_cap(ns) if sizes.by_data_size else None
    return out


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


def _tally(sizes: ChunkSizes, n: int, *, measured: bool, estimated: bool) -> None:
    tally = sizes.tally

    def count() -> None:
        if measured:
            tally.measured += n
        elif estimated:
            tally.estimated += n
        else:
            tally.assumed += n

    sizes.batch.when_real(count)  # a rehearsal of the reads (ChunkBatch.replay): if kept
