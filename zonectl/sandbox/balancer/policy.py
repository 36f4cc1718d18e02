"""Which migrations a balancer round picks: `BalancerPolicy::balance`, as pure functions.

A transcription of mongo:src/mongo/db/s/balancer/balancer_policy.cpp (5.0 chunk counts,
6.0+ data sizes; reference §5.2-§5.3) over plain per-chunk columns, so a round over a
million chunks touches no chunk document except the ones it moves. The balancer builds
the views (`balancer_view`); these functions only decide.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

DRAINING = "draining"
ZONE_VIOLATION = "zoneViolation"
CHUNKS_IMBALANCE = "chunksImbalance"
NO_ZONE = ""  # ZoneInfo::kNoZoneName

Key = Mapping[str, Any]


@dataclass(frozen=True)
class ChunkView:
    """One chunk, materialized only when a migration names it."""

    index: int
    min: Key
    max: Key
    shard: str
    size_bytes: int = 0


@dataclass(frozen=True)
class ShardView:
    id: str
    zones: frozenset[str] = frozenset()
    draining: bool = False


@dataclass(frozen=True)
class CollectionView:
    """One collection as columns: chunk i is on `shards[i]`, holds `sizes[i]` bytes and
    belongs to zone `zones[i]` (the range wholly containing it, §5.2, else NO_ZONE)."""

    ns: str
    shards: Sequence[str]
    sizes: Sequence[int]
    zones: Sequence[str]
    range_zones: frozenset[str]  # zones that have ranges in this collection
    max_chunk_size_bytes: int
    chunk: Callable[[int], ChunkView]
    is_jumbo: Callable[[int], bool]
    straddling: bool = False  # a chunk still straddles a zone boundary (§5.1 step 3)
    balanceable: bool = True  # False: noBalance, allowMigrations/permitMigrations false


@dataclass(frozen=True)
class PolicyParams:
    by_data_size: bool  # 6.0+: data size; 5.0: chunk counts (reference §5.3 table)
    imbalance_threshold: int  # chunk-count threshold (kDefaultImbalanceThreshold)
    # attemptToBalanceJumboChunks: sent as forceJumbo with the migration (a chunk not yet
    # flagged may then pass ChunkTooBig); it never makes a flagged chunk a candidate.
    force_jumbo: bool = False


@dataclass(frozen=True)
class Migration:
    ns: str
    chunk: ChunkView
    to: str
    reason: str

    @property
    def donor(self) -> str:
        return self.chunk.shard


def _suitable(shard: ShardView, zone: str) -> bool:
    """`isShardSuitableReceiver`: not draining, and carries the zone if there is one."""
    return not shard.draining and (zone == NO_ZONE or zone in shard.zones)


class _Distribution:
    """`DistributionStatus`: per shard its chunk indices (by zone) and its data size."""

    def __init__(self, coll: CollectionView, shards: Sequence[ShardView]) -> None:
        self.coll = coll
        self.shards = shards
        self.by_shard: dict[str, list[int]] = {s.id: [] for s in shards}
        self.by_shard_zone: dict[tuple[str, str], list[int]] = {}
        self.size = {s.id: 0 for s in shards}
        self.zone_total: dict[str, int] = {}
        for i, (shard, size, zone) in enumerate(
            zip(coll.shards, coll.sizes, coll.zones, strict=True)
        ):
            self.by_shard.setdefault(shard, []).append(i)
            self.by_shard_zone.setdefault((shard, zone), []).append(i)
            self.size[shard] = self.size.get(shard, 0) + size
            self.zone_total[zone] = self.zone_total.get(zone, 0) + 1

    def in_zone(self, shard: str, zone: str) -> list[int]:
        return self.by_shard_zone.get((shard, zone), [])

    def least_loaded(self, zone: str, params: PolicyParams, available: set[str]) -> str | None:
        best, best_load = None, math.inf
        for shard in self.shards:
            if shard.id not in available or not _suitable(shard, zone):
                continue
            load = self.size[shard.id] if params.by_data_size else len(self.by_shard[shard.id])
            if load < best_load:
                best, best_load = shard.id, load
        return best

    def most_overloaded(self, zone: str, params: PolicyParams, available: set[str]) -> str | None:
        # By data size the donor is chosen whatever its zones (6.x `_getMostOverloadedShard`).
        worst, worst_load = None, -math.inf
        for shard in self.shards:
            if shard.id not in available:
                continue
            load = self.size[shard.id] if params.by_data_size else len(self.in_zone(shard.id, zone))
            if load > worst_load:
                worst, worst_load = shard.id, load
        return worst

    def movable(self, indices: Iterable[int]) -> int | None:
        """The first chunk not flagged jumbo: `_singleZoneBalance...` skips flagged ones
        whatever forceJumbo says (balancer_policy.cpp, 5.0 to 8.x; warning 21894/6581602)."""
        return next((i for i in indices if not self.coll.is_jumbo(i)), None)

    def migration(self, i: int, to: str, reason: str) -> Migration:
        return Migration(self.coll.ns, self.coll.chunk(i), to, reason)


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
        # The no-zone group's ideal counts every chunk of the collection (5.0 source).
        total = len(dist.coll.shards) if zone == NO_ZONE else dist.zone_total.get(zone, 0)
        ideal = math.floor(total / n_shards + 0.5)  # std::roundf
        most = len(dist.in_zone(donor, zone))
        if most <= ideal:
            return None
        recipient = dist.least_loaded(zone, params, available)
        if recipient is None or len(dist.in_zone(recipient, zone)) >= ideal:
            return None
        if most - ideal < params.imbalance_threshold:
            return None
    i = dist.movable(dist.in_zone(donor, zone))
    if i is None:
        return None  # warning 21894: only jumbo chunks for this zone
    return dist.migration(i, recipient, CHUNKS_IMBALANCE)


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
        for i in dist.by_shard[shard.id]:
            if coll.is_jumbo(i):
                continue
            to = dist.least_loaded(coll.zones[i], params, available)
            if to is None:
                continue  # warning 21889: no appropriate recipient
            migrations.append(dist.migration(i, to, DRAINING))
            available -= {shard.id, to}
            break
        if len(available) < 2:
            return migrations
    # 2) Chunks on a shard outside their zone.
    if coll.range_zones:
        for shard in shards:
            if shard.id not in available:
                continue
            for i in dist.by_shard[shard.id]:
                zone = coll.zones[i]
                if zone == NO_ZONE or zone in shard.zones:
                    continue
                if coll.is_jumbo(i):
                    # warning 21891, before forceJumbo is looked at (balancer_policy.cpp)
                    continue
                to = dist.least_loaded(zone, params, available)
                if to is None:
                    continue  # warning 21892: no appropriate recipient; nothing fails
                migrations.append(dist.migration(i, to, ZONE_VIOLATION))
                available -= {shard.id, to}
                break
            if len(available) < 2:
                return migrations
    # 3) Balance each zone among its shards, then the no-zone chunks among all shards.
    for zone in [*sorted(coll.range_zones), NO_ZONE]:
        n_shards = sum(1 for s in shards if zone == NO_ZONE or zone in s.zones)
        if n_shards == 0:
            continue  # warning 21893: the zone has no shards; its chunks stay put
        while (step := _zone_balance_step(dist, zone, n_shards, params, available)) is not None:
            migrations.append(step)
            available -= {step.donor, step.to}
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
        if coll.balanceable and not coll.straddling:
            chosen.extend(balance_collection(coll, shards, available, params))
    return chosen


def compliance(
    coll: CollectionView, shards: Sequence[ShardView], params: PolicyParams
) -> str | None:
    """§3.3: the first violation `balancerCollectionStatus` reports, or None if compliant.

    A pending zone split is a zoneViolation; otherwise the reason of the first migration
    the policy would schedule now, whether or not the balancer is enabled.
    """
    if coll.straddling:
        return ZONE_VIOLATION
    migrations = balance_collection(coll, shards, {s.id for s in shards}, params)
    return migrations[0].reason if migrations else None
