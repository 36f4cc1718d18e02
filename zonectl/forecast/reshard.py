"""The reshard route's forecast (pure): how long a zone change takes as one reshardCollection
to the same key with forceRedistribution (7.2+), and what it needs.

MongoDB's phases (manual, "Resharding Process"): every recipient clones its whole new share
from every donor at once (data that stays on a shard is rewritten too), then catches up on
the oplog, waits out reshardingMinimumOperationDurationMillis (5 min by default), blocks
writes for about 2 s and commits. So the route lasts about as long as the busiest shard's
bytes (sent or received) at one shard's copy rate, unlike migrations, which a shard does
one at a time. The new placement follows the server's split policy as documented: the
chunk bounds stay, split at the zone bounds; a chunk in a zone goes to the zone's shards
in turn, any other to all shards in turn.

The rates are inputs (`ReshardRates`): the copy rate zonectl assumes or learns for a
migration, and the phases beside the copy (oplog catch-up, critical section), learned from
the cluster's earlier reshardings or assumed (zonectl.forecast.reshard_learn).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.reshard_learn import ReshardPhases

STORAGE_FACTOR = 1.2  # manual: free storage of 1.2x the collection (its share per shard)


@dataclass(frozen=True)
class ReshardRates:
    copy_rate: float  # bytes per second one shard copies (sends or receives)
    phases: ReshardPhases = field(default_factory=ReshardPhases)  # learned, else assumed


@dataclass(frozen=True)
class ReshardRoute:
    ns: str
    seconds: float
    bytes: int  # copied: the whole collection
    busiest_shard: str
    busiest_bytes: int
    storage: Mapping[str, int]  # free bytes each recipient needs (1.2x its new share)
    available: bool = True  # False before 7.2 (no forceRedistribution): no figures, all zero
    stranded_jumbo: int = 0  # jumbo chunks outside their zone: no migration moves them
    phases: ReshardPhases = field(default_factory=ReshardPhases)  # beside the copy

    def needs(self) -> tuple[str, ...]:
        """What the route needs from the cluster, in the manual's words, for the operator."""
        worst = max(self.storage.values(), default=0)
        return (
            f"free storage of about 1.2x each shard's new share (up to {worst} bytes)",
            f"an oplog window longer than the resharding ({self.seconds:.0f}s)",
            "writes to the collection blocked about 2 s at the commit",
            "no other resharding (or moveCollection) in the cluster meanwhile",
        )


class ZoneShares:
    """Where each zone's bytes go after a resharding, for every namespace of one layout:
    each shard's zone (a shard in several counts for its first) and each zone's shards."""

    def __init__(self, shard_zones: Mapping[str, frozenset[str]]) -> None:
        self.shard_zones = shard_zones
        self.zone_of = {s: min(z) for s, z in shard_zones.items() if z}
        self.members: dict[str, list[str]] = {}
        for s, zone in self.zone_of.items():
            self.members.setdefault(zone, []).append(s)


def forecast_reshard(
    c: NamespaceChunks,
    shard_zones: Mapping[str, frozenset[str]],
    rates: ReshardRates,
    *,
    shares: ZoneShares | None = None,
) -> ReshardRoute:
    """The route for collection `c` whose chunks carry their zones after the change: every
    chunk listed, or (a targeted read) only those outside their zone with `c.loads`.
    `shares`: ZoneShares(shard_zones), when the caller forecasts many namespaces."""
    sent = c.shard_loads(by_size=True)
    if c.loads is None:
        received = _placement(c, shard_zones)
    else:
        received = _placement_from_loads(c, sent, shares or ZoneShares(shard_zones))
    busiest, most = max(
        ((s, max(sent.get(s, 0), received.get(s, 0))) for s in set(sent) | set(received)),
        key=lambda kv: (kv[1], kv[0]),
        default=("", 0),
    )
    p = rates.phases
    cloning = most / rates.copy_rate
    catch_up = max(p.catch_up_floor_s, cloning * p.catch_up_share)
    seconds = max(cloning + catch_up, p.minimum_s) + p.critical_s
    storage = {s: int(b * STORAGE_FACTOR) for s, b in received.items()}
    stranded = sum(
        1
        for i in c.jumbo
        if c.zones[i] is not None and c.zones[i] not in shard_zones.get(c.shards[i], frozenset())
    )
    total = sum(sent.values())
    return ReshardRoute(c.ns, seconds, total, busiest, most, storage, True, stranded, p)


def _placement(c: NamespaceChunks, shard_zones: Mapping[str, frozenset[str]]) -> dict[str, int]:
    """Every chunk listed: in a zone to its shards in turn, any other to all shards."""
    everyone = itertools.cycle(sorted(shard_zones))
    per_zone: dict[str, itertools.cycle[str]] = {}
    received: dict[str, int] = {}
    for size, zone in zip(c.sizes, c.zones, strict=True):
        if zone is not None and zone not in per_zone:
            holders = sorted(s for s, z in shard_zones.items() if zone in z)
            per_zone[zone] = itertools.cycle(holders or sorted(shard_zones))
        shard = next(per_zone[zone] if zone is not None else everyone)
        received[shard] = received.get(shard, 0) + size
    return received


def _placement_from_loads(
    c: NamespaceChunks, loads: Mapping[str, int], shares: ZoneShares
) -> dict[str, int]:
    """Each zone's bytes after the change (what its shards hold, less what leaves them,
    plus what comes in: the out-of-zone chunks listed), spread evenly over its shards; the
    rest, in no zone, over every shard. A shard in several zones counts for its first."""
    shard_zones, zone_of = shares.shard_zones, shares.zone_of
    per_zone: dict[str, int] = {}
    for shard, nbytes in loads.items():
        if shard in zone_of:
            per_zone[zone_of[shard]] = per_zone.get(zone_of[shard], 0) + nbytes
    for shard, size, zone in zip(c.shards, c.sizes, c.zones, strict=True):
        if shard in zone_of:
            per_zone[zone_of[shard]] -= size
        if zone is not None:
            per_zone[zone] = per_zone.get(zone, 0) + size
    received: dict[str, int] = dict.fromkeys(shard_zones, 0)
    for zone, nbytes in per_zone.items():
        holders = shares.members.get(zone) or list(shard_zones)
        for s in holders:
            received[s] += max(nbytes, 0) // len(holders)
    rest = sum(loads.values()) - sum(received.values())
    for s in received:
        received[s] += max(rest, 0) // max(len(received), 1)
    return received


def recommend(eager_s: float, balancer_s: float | None, route: ReshardRoute | None) -> str:
    """The fastest route: "reshard", "migrate" or "balancer". With jumbo chunks outside
    their zone only resharding complies (migrations skip them), so it wins when available."""
    if route is not None and route.available and route.stranded_jumbo:
        return "reshard"
    options: list[tuple[float, str]] = [(eager_s, "migrate")]
    if balancer_s is not None:
        options.append((balancer_s, "balancer"))
    if route is not None and route.available:
        options.append((route.seconds, "reshard"))
    return min(options)[1]


def routes_for(
    colls: Sequence[NamespaceChunks],
    shard_zones: Mapping[str, frozenset[str]],
    rates: ReshardRates,
    *,
    available: bool,
) -> dict[str, ReshardRoute]:
    """Each namespace's route. Not `available` (before 7.2: no forceRedistribution), each is
    only named, its figures zero: every view says it is not forecast, and none is worked out
    (at 10,000 namespaces they were 6 MB of the plan's JSON, meaning nothing)."""
    if not available:
        return {c.ns: ReshardRoute(c.ns, 0.0, 0, "", 0, {}, False, 0, rates.phases) for c in colls}
    shares = ZoneShares(shard_zones)  # once for every namespace
    return {c.ns: forecast_reshard(c, shard_zones, rates, shares=shares) for c in colls}
