"""Which splits and migrations a balancer round picks: pure functions over plain values.

A transcription of `BalancerPolicy::balance` and the zone split step of
`BalancerChunkSelectionPolicyImpl` (mongo:src/mongo/db/s/balancer/balancer_policy.cpp,
balancer_chunk_selection_policy_impl.cpp; reference §5.1-§5.3). No I/O, no clock: the
balancer builds the views, these functions decide.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zonectl.model.keys import SortKey, compare, sort_key

Key = Mapping[str, Any]

DRAINING = "draining"
ZONE_VIOLATION = "zoneViolation"
CHUNKS_IMBALANCE = "chunksImbalance"
NO_ZONE = ""  # ZoneInfo::kNoZoneName


@dataclass(frozen=True)
class ChunkView:
    min: Key
    max: Key
    shard: str
    jumbo: bool = False
    size_bytes: int = 0


@dataclass(frozen=True)
class ZoneRange:
    min: Key  # filled in to the full shard key (createCollectionZoneInfo extends the bounds)
    max: Key
    zone: str


@dataclass(frozen=True)
class ShardView:
    id: str
    zones: frozenset[str] = frozenset()
    draining: bool = False


@dataclass(frozen=True)
class CollectionView:
    ns: str
    chunks: Sequence[ChunkView]  # sorted by min, contiguous
    ranges: Sequence[ZoneRange]  # sorted by min, non-overlapping
    max_chunk_size_bytes: int
    balanceable: bool = True  # False: noBalance, allowMigrations/permitMigrations false
    _range_mins: list[SortKey] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._range_mins.extend(sort_key(r.min) for r in self.ranges)

    def zone_of(self, chunk: ChunkView) -> str:
        """§5.2: the zone whose range wholly contains the chunk, else no zone."""
        i = bisect.bisect_right(self._range_mins, sort_key(chunk.min)) - 1
        if i < 0:
            return NO_ZONE
        rng = self.ranges[i]
        return rng.zone if compare(chunk.max, rng.max) <= 0 else NO_ZONE


@dataclass(frozen=True)
class PolicyParams:
    by_data_size: bool  # 6.0+: data size; 5.0: chunk counts (reference §5.3 table)
    imbalance_threshold: int  # chunk-count threshold (kDefaultImbalanceThreshold)
    force_jumbo: bool = False  # attemptToBalanceJumboChunks


@dataclass(frozen=True)
class Migration:
    ns: str
    chunk: ChunkView
    to: str
    reason: str

    @property
    def donor(self) -> str:
        return self.chunk.shard


def split_points(coll: CollectionView) -> list[tuple[ChunkView, list[Key]]]:
    """§5.1 step 2: every zone boundary strictly inside a chunk, grouped per chunk.

    The global max is never strictly inside a chunk, so it is never a split point.
    """
    mins = [sort_key(c.min) for c in coll.chunks]
    found: dict[int, dict[SortKey, Key]] = {}
    for rng in coll.ranges:
        for bound in (rng.min, rng.max):
            key = sort_key(bound)
            i = bisect.bisect_right(mins, key) - 1
            if i < 0:
                continue
            chunk = coll.chunks[i]
            if mins[i] < key < sort_key(chunk.max):
                found.setdefault(i, {})[key] = bound
    return [
        (coll.chunks[i], [points[k] for k in sorted(points)]) for i, points in sorted(found.items())
    ]


def _chunks_by_shard(coll: CollectionView) -> dict[str, list[ChunkView]]:
    by_shard: dict[str, list[ChunkView]] = {}
    for chunk in coll.chunks:
        by_shard.setdefault(chunk.shard, []).append(chunk)
    return by_shard


def _suitable(shard: ShardView, zone: str) -> bool:
    """`isShardSuitableReceiver`: not draining, and carries the zone if there is one."""
    return not shard.draining and (zone == NO_ZONE or zone in shard.zones)


class _Distribution:
    """`DistributionStatus` plus the per-shard data sizes of one collection."""

    def __init__(self, coll: CollectionView, shards: Sequence[ShardView]) -> None:
        self.coll = coll
        self.shards = shards
        self.by_shard = _chunks_by_shard(coll)
        self.zone = {id(c): coll.zone_of(c) for c in coll.chunks}
        self.size = {s.id: sum(c.size_bytes for c in self.by_shard.get(s.id, ())) for s in shards}

    def chunks_in_zone(self, shard: str, zone: str) -> list[ChunkView]:
        return [c for c in self.by_shard.get(shard, ()) if self.zone[id(c)] == zone]

    def count(self, shard: str) -> int:
        return len(self.by_shard.get(shard, ()))

    def least_loaded(self, zone: str, params: PolicyParams, available: set[str]) -> str | None:
        best, best_load = None, math.inf
        for shard in self.shards:
            if shard.id not in available or not _suitable(shard, zone):
                continue
            load = self.size[shard.id] if params.by_data_size else self.count(shard.id)
            if load < best_load:
                best, best_load = shard.id, load
        return best

    def most_overloaded(self, zone: str, params: PolicyParams, available: set[str]) -> str | None:
        # Data size ignores the zone when choosing the donor (6.x `_getMostOverloadedShard`).
        worst, worst_load = None, -math.inf
        for shard in self.shards:
            if shard.id not in available:
                continue
            if params.by_data_size:
                load = float(self.size[shard.id])
            else:
                load = float(len(self.chunks_in_zone(shard.id, zone)))
            if load > worst_load:
                worst, worst_load = shard.id, load
        return worst


def _movable(chunks: Iterable[ChunkView], force_jumbo: bool) -> ChunkView | None:
    return next((c for c in chunks if force_jumbo or not c.jumbo), None)


def _zone_balance_step(
    dist: _Distribution, zone: str, n_shards: int, params: PolicyParams, available: set[str]
) -> Migration | None:
    """One iteration of `_singleZoneBalanceBasedOnChunks` / `...BasedOnDataSize`."""
    donor = dist.most_overloaded(zone, params, available)
    if donor is None:
        return None
    if params.by_data_size:
        zone_shards = [s for s in dist.shards if zone == NO_ZONE or zone in s.zones]
        ideal = sum(dist.size[s.id] for s in zone_shards) // n_shards
        recipient = dist.least_loaded(zone, params, available)
        if recipient is None or recipient == donor:
            return None
        from_size, to_size = dist.size[donor], dist.size[recipient]
        if from_size <= ideal or to_size >= ideal:
            return None
        if from_size - to_size < 3 * dist.coll.max_chunk_size_bytes:
            return None
    else:
        total = (
            len(dist.coll.chunks)
            if zone == NO_ZONE
            else sum(1 for c in dist.coll.chunks if dist.zone[id(c)] == zone)
        )
        ideal = math.floor(total / n_shards + 0.5)  # std::roundf
        most = len(dist.chunks_in_zone(donor, zone))
        if most <= ideal:
            return None
        recipient = dist.least_loaded(zone, params, available)
        if recipient is None or len(dist.chunks_in_zone(recipient, zone)) >= ideal:
            return None
        if most - ideal < params.imbalance_threshold:
            return None
    # Imbalance moves never force jumbo chunks (only `attemptToBalanceJumboChunks` does).
    chunk = _movable(dist.chunks_in_zone(donor, zone), params.force_jumbo)
    if chunk is None:
        return None
    return Migration(dist.coll.ns, chunk, recipient, CHUNKS_IMBALANCE)


def _take(available: set[str], *shards: str) -> None:
    for shard in shards:
        available.discard(shard)


def balance_collection(
    coll: CollectionView,
    shards: Sequence[ShardView],
    available: set[str],
    params: PolicyParams,
) -> list[Migration]:
    """`BalancerPolicy::balance` for one collection; removes used shards from `available`."""
    dist = _Distribution(coll, shards)
    migrations: list[Migration] = []
    # 1) Draining shards: jumbo chunks are always skipped here, so draining can stall.
    for shard in shards:
        if not shard.draining or shard.id not in available:
            continue
        for chunk in dist.by_shard.get(shard.id, ()):
            if chunk.jumbo:
                continue
            to = dist.least_loaded(dist.zone[id(chunk)], params, available)
            if to is None:
                continue  # warning 21889: no appropriate recipient
            migrations.append(Migration(coll.ns, chunk, to, DRAINING))
            _take(available, shard.id, to)
            break
        if len(available) < 2:
            return migrations
    # 2) Chunks on a shard outside their zone.
    if coll.ranges:
        for shard in shards:
            if shard.id not in available:
                continue
            for chunk in dist.by_shard.get(shard.id, ()):
                zone = dist.zone[id(chunk)]
                if zone == NO_ZONE or zone in shard.zones:
                    continue
                if chunk.jumbo and not params.force_jumbo:
                    continue  # warning 21891: violates zone but is jumbo
                to = dist.least_loaded(zone, params, available)
                if to is None:
                    continue  # warning 21892: no appropriate recipient; nothing fails
                migrations.append(Migration(coll.ns, chunk, to, ZONE_VIOLATION))
                _take(available, shard.id, to)
                break
            if len(available) < 2:
                return migrations
    # 3) Balance each zone among its shards, then the no-zone chunks among all shards.
    zones = [*sorted({r.zone for r in coll.ranges}), NO_ZONE]
    for zone in zones:
        n_shards = sum(1 for s in shards if zone == NO_ZONE or zone in s.zones)
        if n_shards == 0:
            continue  # warning 21893: the zone has no shards; its chunks stay put
        while True:
            step = _zone_balance_step(dist, zone, n_shards, params, available)
            if step is None:
                break
            migrations.append(step)
            _take(available, step.donor, step.to)
    return migrations


def select_migrations(
    colls: Iterable[CollectionView],
    shards: Sequence[ShardView],
    available: set[str],
    params: PolicyParams,
) -> list[Migration]:
    """§5.1 step 3: migrations for every balanceable collection, one per shard per round.

    A collection with a chunk straddling a zone boundary is postponed (IllegalOperation
    "Zone boundaries ... fall in the middle of an existing chunk" is recorded and skipped).
    """
    chosen: list[Migration] = []
    for coll in colls:
        if len(available) < 2:
            break
        if not coll.balanceable or split_points(coll):
            continue
        chosen.extend(balance_collection(coll, shards, available, params))
    return chosen


def compliance(
    coll: CollectionView, shards: Sequence[ShardView], params: PolicyParams
) -> str | None:
    """§3.3: the first violation `balancerCollectionStatus` reports, or None if compliant.

    A pending zone split is a zoneViolation; otherwise the reason of the first migration
    the policy would schedule now, whether or not the balancer is enabled.
    """
    if split_points(coll):
        return ZONE_VIOLATION
    migrations = balance_collection(coll, shards, {s.id for s in shards}, params)
    return migrations[0].reason if migrations else None
