"""The reasons the policy's outcome gives, with their numbers and fixes: what is pending
(draining, zone-violation, chunks-imbalance), and why what is off stays (jumbo,
no-recipient, below-threshold). Rules in zonectl/explain/policy.py."""

from __future__ import annotations

from collections.abc import Sequence

from zonectl.explain.facts import NO_ZONE, ClusterFacts, CollectionFacts
from zonectl.explain.policy import (
    CHUNKS_IMBALANCE,
    DRAINING,
    ZONE_VIOLATION,
    Move,
    ZoneCheck,
    suitable,
)
from zonectl.explain.reasons import Reason, plural, size

MIGRATE_NOW = "nothing to do: the balancer moves it; `zonectl apply --migrate` moves it now"
BALANCER_MOVES = "nothing to do: the balancer moves it in its coming rounds"


def zone_name(zone: str) -> str:
    return f"zone {zone}" if zone != NO_ZONE else "no zone"


def pending(coll: CollectionFacts, cluster: ClusterFacts, moves: Sequence[Move]) -> list[Reason]:
    """One reason per kind of migration the policy chose, the first one first."""
    out: list[Reason] = []
    kinds = [m.reason for m in moves]
    if coll.straddling and ZONE_VIOLATION not in kinds:
        kinds.insert(0, ZONE_VIOLATION)
    for kind in dict.fromkeys(kinds):
        first = next((m for m in moves if m.reason == kind), None)
        if kind == DRAINING:
            out.append(_draining(coll, cluster, first))
        elif kind == ZONE_VIOLATION:
            out.append(_violation(coll, cluster, first))
        elif first is not None:
            out.append(_imbalance(coll, cluster, first))
    return out


def _draining(coll: CollectionFacts, cluster: ClusterFacts, move: Move | None) -> Reason:
    held = {s.id: coll.chunks_on(s.id) for s in cluster.shards if s.draining}
    where = ", ".join(f"{s} holds {plural(n, 'chunk')}" for s, n in held.items() if n)
    to = f"; the next goes {move.donor} -> {move.to}" if move else ""
    return Reason(
        DRAINING,
        f"draining shard {where} of this collection{to}",
        "nothing to do: the balancer empties it, then removeShard again to finish",
    )


def outside(coll: CollectionFacts, cluster: ClusterFacts) -> list[tuple[str, str, int, int]]:
    """(shard, zone, chunks, jumbo) for each shard holding chunks of a zone it lacks."""
    out = []
    for shard in cluster.shards:
        for zone in coll.zones_on(shard.id):
            if zone != NO_ZONE and zone not in shard.zones:
                t = coll.in_zone(shard.id, zone)
                out.append((shard.id, zone, t.chunks, t.jumbo))
    return out


def _violation(coll: CollectionFacts, cluster: ClusterFacts, move: Move | None) -> Reason:
    off = outside(coll, cluster)
    count = sum(n - j for _, _, n, j in off)
    parts = []
    if count:
        first = off[0]
        parts.append(f"{plural(count, 'chunk')} outside their zone (e.g. {first[1]} on {first[0]})")
    if coll.straddling:
        parts.append(f"{plural(coll.straddling, 'chunk')} straddling a zone boundary (split first)")
    to = f"; the next goes {move.donor} -> {move.to}" if move else ""
    return Reason(ZONE_VIOLATION, " and ".join(parts) + to, MIGRATE_NOW)


def _imbalance(coll: CollectionFacts, cluster: ClusterFacts, move: Move) -> Reason:
    zone = zone_name(move.zone)
    if cluster.by_data_size:
        sizes = coll.sizes or {}
        d, t = sizes.get(move.donor, 0), sizes.get(move.to, 0)
        text = (
            f"{move.donor} holds {size(d)}, {move.to} {size(t)} ({zone}): the difference "
            f"{size(d - t)} reaches the threshold 3 x chunk size = {size(3 * coll.max_chunk_bytes)}"
        )
    else:
        d, t = coll.in_zone(move.donor, move.zone).chunks, coll.in_zone(move.to, move.zone).chunks
        text = (
            f"{move.donor} holds {plural(d, 'chunk')}, {move.to} {t} ({zone}): more than "
            f"the ideal by at least {cluster.chunk_threshold} (chunk counts, before 6.0.3)"
        )
    # `apply --migrate` moves only chunks out of their zone: an imbalance is the balancer's
    return Reason(CHUNKS_IMBALANCE, text, BALANCER_MOVES)


def blockers(
    coll: CollectionFacts, cluster: ClusterFacts, checks: Sequence[ZoneCheck]
) -> list[Reason]:
    """Why what is off stays: jumbo chunks, zones without a receiver (stuck)."""
    out: list[Reason] = []
    jumbo_off = [(s, z, j) for s, z, _, j in outside(coll, cluster) if j]
    drain_jumbo = [
        (s.id, sum(t.jumbo for (sh, _), t in coll.tally.items() if sh == s.id))
        for s in cluster.shards
        if s.draining
    ]
    drain_jumbo = [(s, j) for s, j in drain_jumbo if j]
    only_jumbo = [c for c in checks if c.stop == "jumbo"]
    if jumbo_off or drain_jumbo or only_jumbo:
        said = [f"{plural(j, 'jumbo chunk')} of zone {z} on {s}" for s, z, j in jumbo_off]
        said += [f"{plural(j, 'jumbo chunk')} on draining shard {s}" for s, j in drain_jumbo]
        said += [f"{c.donor} holds only jumbo chunks of {zone_name(c.zone)}" for c in only_jumbo]
        out.append(
            Reason(
                "jumbo",
                "; ".join(said) + ": the balancer never moves a chunk flagged jumbo "
                "(balancer_policy.cpp, log 21891), whatever attemptToBalanceJumboChunks says",
                "split it (sh.splitAt) or clear the flag (clearJumboFlag) so the balancer "
                "can move it, or moveRange it with forceJumbo: true",
            )
        )
    homeless = _homeless(coll, cluster)
    if homeless:
        out.append(
            Reason(
                "no-recipient",
                "; ".join(homeless) + ": no shard that is not draining carries the zone, "
                "so they stay (balancer_policy.cpp, logs 21892/21893; nothing fails)",
                "add a shard to the zone (addShardToZone, or the policy's `shards:`), or "
                "remove the zone's ranges",
            )
        )
    return out


def _homeless(coll: CollectionFacts, cluster: ClusterFacts) -> list[str]:
    said = []
    by_zone: dict[str, int] = {}
    for shard in cluster.shards:
        for zone in coll.zones_on(shard.id):
            if zone == NO_ZONE or (zone in shard.zones and not shard.draining):
                continue
            by_zone[zone] = by_zone.get(zone, 0) + coll.in_zone(shard.id, zone).movable
    for zone, n in sorted(by_zone.items()):
        if n and not any(suitable(s, zone) for s in cluster.shards):
            said.append(f"{plural(n, 'chunk')} of zone {zone}")
    return said


def below(
    coll: CollectionFacts, cluster: ClusterFacts, checks: Sequence[ZoneCheck]
) -> list[Reason]:
    """Zones whose difference the balancer's rule leaves alone, with the numbers."""
    out = []
    for c in checks:
        if c.stop not in ("below-threshold", "at-ideal"):
            continue
        zone = zone_name(c.zone)
        if cluster.by_data_size:
            text = f"{c.donor} holds {size(c.donor_load)}, {c.to} {size(c.to_load)} ({zone}): "
            if c.stop == "below-threshold":
                text += (
                    f"the difference {size(c.donor_load - c.to_load)} is below the threshold "
                    f"3 x chunk size = {size(c.threshold)} (6.0.3+, data size)"
                )
            else:
                text += (
                    f"a chunk moves only when the most loaded shard holds more than the zone's "
                    f"ideal {size(c.ideal)} and the least loaded less (6.0.3+, data size; the "
                    "most loaded is taken over all shards, whatever their zones)"
                )
            fix = (
                "nothing to do; to balance finer, lower the chunk size "
                "(configureCollectionBalancing chunkSize)"
            )
            if not coll.in_zone(c.donor, c.zone).chunks:
                # balancer_policy.cpp takes the donor by its data over every zone; had the
                # difference reached the threshold, none of its chunks would be of this one
                text += f"; {c.donor} holds no chunk of {zone}, so none would move at any size"
                fix = "nothing to do: no chunk size makes the balancer move one here"
        else:
            text = (
                f"{c.donor} holds {plural(c.donor_load, 'chunk')}, {c.to} {c.to_load} ({zone}): "
                f"the ideal is {c.ideal} per shard (rounded), and a chunk moves only when the "
                f"donor holds more than it by {c.threshold} or more and the receiver fewer"
            )
            fix = "nothing to do: the balancer counts chunks, and this is as even as it gets"
        out.append(Reason("below-threshold", text, fix))
    return out
