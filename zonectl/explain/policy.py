"""`BalancerPolicy::balance` over counts: which migrations a balancer round would choose for
one collection, and, where it chooses none, which rule stopped it. Ported from
mongo:src/mongo/db/s/balancer/balancer_policy.cpp (5.0, 6.0, 7.0 and 8.x read; the steps
are the same, the load measure changed), never from the sandbox's own port.

The rules, in MongoDB's order (docs/explain.md lists them with the same sources):

1. Draining shards (`balance` step 1): per draining shard, the first chunk that is not
   jumbo and has a receiver goes to the least loaded suitable shard. Jumbo chunks are
   skipped whatever `attemptToBalanceJumboChunks` says (the step never reads it; log 21890
   counts them), so a draining shard holding only jumbo chunks never empties.
2. Zone violations (step 2, only when the collection has zone ranges): per shard, per zone
   of its chunks that the shard does not carry, the first chunk that is not jumbo (log
   21891: "Chunk violates zone, but it is jumbo and cannot be moved") goes to the least
   loaded suitable shard; none suitable: log 21892 and nothing moves, no error anywhere.
3. Per zone, then the chunks of no zone (step 3): a zone no shard carries is skipped (log
   21893). Then `_singleZoneBalanceBasedOnChunks` (up to 6.0.2, and at FCV below 6.0) or
   `_singleZoneBalanceBasedOnDataSize` (6.0.3+):
   - chunks: ideal = roundf(chunks in the zone / shards of the zone) (every chunk of the
     collection for the no-zone group); the donor is the available shard with most chunks
     in the zone, the receiver the suitable one with fewest chunks of the collection; a
     chunk moves when donor > ideal, receiver < ideal and donor - ideal >=
     kDefaultImbalanceThreshold (1 from 5.0; 2 in 4.4, 1 when draining);
   - data size: ideal = bytes on the zone's shards / their number; the donor is the
     available shard holding most of the collection's bytes (whatever its zones), the
     receiver the suitable one holding least; a chunk moves when donor > ideal, receiver <
     ideal and donor - receiver >= 3 x the collection's max chunk size.
   The donor's first chunk in the zone that is not jumbo moves (only jumbo: warning
   21894 / 6581602, nothing moves).
   `isShardSuitableReceiver`: not draining, and carrying the chunk's zone when it has one
   (5.0 also refuses a shard past its `maxSize`, which zonectl does not read).
Every shard takes part in at most one migration per round (`availableShards`); with fewer
than two shards nothing moves. `balancerCollectionStatus` reports the first reason of
these migrations with every shard available (balancer.cpp `getBalancerStatusForNs`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from zonectl.explain.facts import NO_ZONE, ClusterFacts, CollectionFacts, ShardFacts

DRAINING = "draining"
ZONE_VIOLATION = "zone-violation"
CHUNKS_IMBALANCE = "chunks-imbalance"


@dataclass(frozen=True)
class Move:
    """A migration the policy would choose: its reason, donor, receiver and zone."""

    reason: str
    donor: str
    to: str
    zone: str


@dataclass(frozen=True)
class ZoneCheck:
    """Step 3 for one zone with every shard available: what stopped it, with the numbers.
    `stop`: "moves", "even", "at-ideal" (the donor is not above the ideal or the receiver
    not below it), "below-threshold", "jumbo", "no-recipient", or
    "donor-outside-zone" (by data size the donor holds no chunk of the zone)."""

    zone: str
    stop: str
    donor: str = ""
    to: str = ""
    donor_load: int = 0  # chunks in the zone (by chunks) or bytes (by data size)
    to_load: int = 0
    ideal: int = 0
    threshold: int = 0


def suitable(shard: ShardFacts, zone: str) -> bool:
    """`BalancerPolicy::isShardSuitableReceiver`: not draining; carries the zone if any."""
    return not shard.draining and (zone == NO_ZONE or zone in shard.zones)


class _Policy:
    def __init__(self, coll: CollectionFacts, cluster: ClusterFacts) -> None:
        self.coll = coll
        self.cluster = cluster
        self.shards: Sequence[ShardFacts] = cluster.shards

    def load(self, shard: str) -> int:
        """The receiver's measure: bytes of the collection, or its chunks (all zones)."""
        if self.cluster.by_data_size:
            return (self.coll.sizes or {}).get(shard, 0)
        return self.coll.chunks_on(shard)

    def least_loaded(self, zone: str, available: set[str]) -> str | None:
        """`_getLeastLoadedReceiverShard`: strictly lower wins, shards in id order."""
        best, best_load = None, math.inf
        for shard in self.shards:
            if shard.id in available and suitable(shard, zone) and self.load(shard.id) < best_load:
                best, best_load = shard.id, self.load(shard.id)
        return best

    def most_overloaded(self, zone: str, available: set[str]) -> str | None:
        """`_getMostOverloadedShard`: by data size the collection's bytes on the shard,
        whatever its zones; by chunks its chunks in `zone`."""
        worst, worst_load = None, -math.inf
        for shard in self.shards:
            if shard.id not in available:
                continue
            load = (
                self.load(shard.id)
                if self.cluster.by_data_size
                else self.coll.in_zone(shard.id, zone).chunks
            )
            if load > worst_load:
                worst, worst_load = shard.id, load
        return worst

    def zone_shards(self, zone: str) -> list[ShardFacts]:
        return [s for s in self.shards if zone == NO_ZONE or zone in s.zones]

    def check_zone(self, zone: str, available: set[str]) -> ZoneCheck:
        """One `_singleZoneBalance...` step."""
        coll = self.coll
        members = self.zone_shards(zone)
        if not members:
            return ZoneCheck(zone, "no-recipient")  # log 21893
        donor = self.most_overloaded(zone, available)
        if donor is None:
            return ZoneCheck(zone, "even")
        if self.cluster.by_data_size:
            sizes = coll.sizes or {}
            total = sum(sizes.get(s.id, 0) for s in members)
            if total == 0:
                return ZoneCheck(zone, "even")
            ideal = total // len(members)
            to = self.least_loaded(zone, available)
            if to is None:
                return ZoneCheck(zone, "no-recipient", donor=donor)
            from_load, to_load = self.load(donor), self.load(to)
            threshold = 3 * coll.max_chunk_bytes
            check = ZoneCheck(zone, "", donor, to, from_load, to_load, ideal, threshold)
            if donor == to or from_load <= ideal or to_load >= ideal:
                return _with(check, "even" if from_load == to_load else "at-ideal")
            if from_load - to_load < threshold:
                return _with(check, "below-threshold")
        else:
            total = (
                coll.total_chunks()
                if zone == NO_ZONE
                else sum(coll.in_zone(s.id, zone).chunks for s in self.shards)
            )
            ideal = math.floor(total / len(members) + 0.5)  # std::roundf, positive values
            from_load = coll.in_zone(donor, zone).chunks
            threshold = self.cluster.chunk_threshold
            to = self.least_loaded(zone, available)
            if to is None and from_load > ideal:
                return ZoneCheck(zone, "no-recipient", donor=donor)
            to_load = coll.in_zone(to, zone).chunks if to is not None else 0
            check = ZoneCheck(zone, "", donor, to or "", from_load, to_load, ideal, threshold)
            if to is None or from_load <= ideal or to_load >= ideal:
                return _with(check, "even" if from_load == to_load else "at-ideal")
            if from_load - ideal < threshold:
                return _with(check, "below-threshold")
        if coll.in_zone(donor, zone).chunks == 0:
            # By data size the donor may hold nothing of this zone: nothing moves, silently.
            return _with(check, "donor-outside-zone")
        if coll.in_zone(donor, zone).movable == 0:
            return _with(check, "jumbo")  # warning 21894 / 6581602
        return _with(check, "moves")


def _with(check: ZoneCheck, stop: str) -> ZoneCheck:
    return ZoneCheck(
        check.zone, stop, check.donor, check.to, check.donor_load, check.to_load,
        check.ideal, check.threshold,
    )  # fmt: skip


def select(coll: CollectionFacts, cluster: ClusterFacts) -> list[Move]:
    """The migrations `BalancerPolicy::balance` chooses for `coll` alone, every shard
    available at the start (what `balancerCollectionStatus` asks); the first one's reason
    is its `firstComplianceViolation`."""
    policy = _Policy(coll, cluster)
    if len(cluster.shards) < 2:
        return []
    available = {s.id for s in cluster.shards}
    moves: list[Move] = []

    def take(move: Move) -> None:
        moves.append(move)
        available.difference_update({move.donor, move.to})

    for shard in cluster.shards:  # 1) draining
        if not shard.draining or shard.id not in available:
            continue
        for zone in coll.zones_on(shard.id):
            if coll.in_zone(shard.id, zone).movable == 0:
                continue  # only jumbo chunks here
            to = policy.least_loaded(zone, available)
            if to is not None:  # else log 21889: no appropriate recipient
                take(Move(DRAINING, shard.id, to, zone))
                break
        if len(available) < 2:
            return moves
    if coll.range_zones:  # 2) zone violations
        for shard in cluster.shards:
            if shard.id not in available:
                continue
            for zone in coll.zones_on(shard.id):
                if zone == NO_ZONE or zone in shard.zones:
                    continue
                if coll.in_zone(shard.id, zone).movable == 0:
                    continue  # log 21891: jumbo, cannot be moved
                to = policy.least_loaded(zone, available)
                if to is not None:  # else log 21892: no appropriate recipient
                    take(Move(ZONE_VIOLATION, shard.id, to, zone))
                    break
            if len(available) < 2:
                return moves
    for zone in [*sorted(coll.range_zones), NO_ZONE]:  # 3) each zone, then no zone
        if not policy.zone_shards(zone):
            continue  # log 21893
        while len(available) >= 2:
            check = policy.check_zone(zone, available)
            if check.stop != "moves":
                break
            take(Move(CHUNKS_IMBALANCE, check.donor, check.to, zone))
    return moves


def zone_checks(coll: CollectionFacts, cluster: ClusterFacts) -> list[ZoneCheck]:
    """Step 3 for each zone of the collection (no zone last), every shard available: why
    each one does or does not move."""
    if len(cluster.shards) < 2 or (cluster.by_data_size and coll.sizes is None):
        return []
    policy = _Policy(coll, cluster)
    every = {s.id for s in cluster.shards}
    return [policy.check_zone(z, every) for z in [*sorted(coll.range_zones), NO_ZONE]]
