"""Rules about chunks against zones: jumbo chunks that cannot reach or fit their zone, zones
whose shards are all draining, ranges on namespaces not sharded yet (and the pre-split they
imply), per-shard balance inside a zone, and a firehose window's backlog (reference §5.4:
the balancer moves chunks into their zone and splits at zone bounds, but never a jumbo one)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zonectl.analyze.inputs import ChunkInfo, CollectionInput
from zonectl.analyze.report import Finding, Severity
from zonectl.model.cluster import ClusterState, LiveRange
from zonectl.model.desired import CollectionPolicy
from zonectl.model.keys import format_value, is_max_key, is_min_key, range_contains, sort_key

IMBALANCE = 2.0  # a shard holding at least twice its fair share of a zone's data
MIN_CHUNKS_PER_SHARD = 2  # below this a zone is too small to call unbalanced


def zone_shards(state: ClusterState) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for shard in state.shards:
        for zone in shard.zones:
            out.setdefault(zone, []).append(shard.id)
    return out


def zone_of(chunk: ChunkInfo, ranges: Sequence[LiveRange]) -> LiveRange | None:
    for r in ranges:
        if range_contains(r.min, r.max, chunk.min, chunk.max):
            return r
    return None


def jumbo_rules(
    coll: CollectionInput, ranges: Sequence[LiveRange], holders: Mapping[str, list[str]]
) -> list[Finding]:
    """ZA106 jumbo chunk outside its zone's shards; ZA107 jumbo chunk across a zone bound."""
    found: list[Finding] = []
    bounds = sorted(
        {sort_key(b): b for r in ranges for b in (r.min, r.max)}.items(), key=lambda kv: kv[0]
    )
    for chunk in coll.chunks:
        if not chunk.jumbo:
            continue
        shown = f"[{format_value(dict(chunk.min))}, {format_value(dict(chunk.max))})"
        lo, hi = sort_key(chunk.min), sort_key(chunk.max)
        inside = [b for k, b in bounds if lo < k < hi]
        if inside:
            found.append(
                Finding(
                    "ZA107",
                    "jumbo-chunk-straddles-zone-boundary",
                    Severity.ERROR,
                    coll.namespace,
                    f"jumbo chunk {shown} on {chunk.shard} contains the zone bound "
                    f"{format_value(dict(inside[0]))}: the balancer will not split or move it",
                    f"Split it at the bound (split {{middle: {format_value(dict(inside[0]))}}})"
                    ", then clearJumboFlag so the balancer can place both halves.",
                    "config metadata",
                )
            )
            continue
        home = zone_of(chunk, ranges)
        if home is not None and chunk.shard not in holders.get(home.zone, []):
            found.append(
                Finding(
                    "ZA106",
                    "jumbo-chunk-in-wrong-zone",
                    Severity.ERROR,
                    coll.namespace,
                    f"jumbo chunk {shown} lies in zone {home.zone} but sits on {chunk.shard}, "
                    f"which is not in the zone ({', '.join(holders.get(home.zone, [])) or 'none'})"
                    ": the balancer never moves jumbo chunks",
                    "Split the chunk or refine the shard key, clearJumboFlag, then let the "
                    "balancer (or moveChunk with forceJumbo) move it into its zone.",
                    "config metadata",
                )
            )
    return found


def draining_rules(state: ClusterState) -> list[Finding]:
    """ZA108: a zone with ranges whose every shard is draining strands its data."""
    found: list[Finding] = []
    holders = zone_shards(state)
    draining = {s.id for s in state.shards if s.draining}
    zoned = sorted({r.zone for r in state.ranges})
    for zone in zoned:
        shards = holders.get(zone, [])
        if shards and all(s in draining for s in shards):
            namespaces = sorted({r.namespace for r in state.ranges if r.zone == zone})
            found.append(
                Finding(
                    "ZA108",
                    "zone-only-on-draining-shards",
                    Severity.ERROR,
                    None,
                    f"zone {zone} (ranges of {', '.join(namespaces)}) is carried only by "
                    f"draining shard(s) {', '.join(shards)}: its chunks cannot leave them, so "
                    "removeShard never finishes",
                    f"Add a non-draining shard to zone {zone} (addShardToZone) before the "
                    "removal completes.",
                    "config metadata",
                )
            )
    return found


def unsharded_rule(
    coll: CollectionInput, policy: CollectionPolicy | None, live: Sequence[LiveRange]
) -> list[Finding]:
    """ZA109: zone ranges or a window for a namespace that is not sharded yet; the ranges
    imply the split points the collection should be created (pre-split) with."""
    if coll.kind not in ("unsharded", "missing"):
        return []
    points: dict[Any, Mapping[str, Any]] = {}
    what = []
    if policy is not None:
        for r in policy.ranges:
            for b in (r.min, r.max):
                if not _global(b):
                    points[sort_key(b)] = b
        if policy.ranges:
            what.append(f"{len(policy.ranges)} policy range(s)")
        # A pin alone is fine on an unsharded collection: 8.0+ moves it whole
        # (moveCollection), earlier versions get a report from plan (docs/policy.md,
        # "Pinning unsharded collections").
        if policy.firehose:
            what.append("a firehose window (split at its boundary)")
    for lr in live:
        for b in (lr.min, lr.max):
            if not _global(b):
                points[sort_key(b)] = b
    if live:
        what.append(f"{len(live)} live range(s) in config.tags")
    if not what:
        return []
    split = [format_value(dict(points[k])) for k in sorted(points)]
    key = format_value(dict(policy.key)) if policy is not None and policy.key else "the key"
    presplit = (
        f"; the ranges imply {len(split) + 1} initial chunks split at {', '.join(split[:6])}"
        + (" ..." if len(split) > 6 else "")
        if split
        else ""
    )
    state = "does not exist" if coll.kind == "missing" else "is not sharded"
    return [
        Finding(
            "ZA109",
            "range-on-unsharded-namespace",
            Severity.WARNING,
            coll.namespace,
            f"{coll.namespace} {state} but has {' and '.join(what)}{presplit}",
            f"Shard it on {key} (shardCollection, with presplitHashedZones for a hashed key) "
            "after the zones exist, so its chunks are created at the zone bounds.",
            "policy" if policy is not None else "config metadata",
        )
    ]


def balance_rule(
    coll: CollectionInput, ranges: Sequence[LiveRange], holders: Mapping[str, list[str]]
) -> tuple[list[Finding], dict[str, dict[str, int]]]:
    """ZA110: inside each zone, a shard with over twice its fair share of the zone's data.
    Returns the findings and zone -> shard -> estimated bytes."""
    per_chunk = _bytes_per_chunk(coll)
    by_zone: dict[str, dict[str, int]] = {}
    for chunk in coll.chunks:
        zr = zone_of(chunk, ranges)
        if zr is None:
            continue
        acc = by_zone.setdefault(zr.zone, {})
        size = chunk.bytes if chunk.bytes is not None else per_chunk.get(chunk.shard, 1)
        acc[chunk.shard] = acc.get(chunk.shard, 0) + size
    found: list[Finding] = []
    counts: dict[str, int] = {}
    for chunk in coll.chunks:
        if (zr := zone_of(chunk, ranges)) is not None:
            counts[zr.zone] = counts.get(zr.zone, 0) + 1
    for zone, sizes in sorted(by_zone.items()):
        shards = holders.get(zone, [])
        if len(shards) < 2:
            continue
        in_zone = {s: sizes.get(s, 0) for s in shards}
        total = sum(in_zone.values())
        if total == 0 or counts.get(zone, 0) < MIN_CHUNKS_PER_SHARD * len(shards):
            continue
        fair = total / len(shards)
        heavy, most = max(in_zone.items(), key=lambda kv: kv[1])
        if most >= IMBALANCE * fair:
            shares = ", ".join(f"{s} {100 * v / total:.0f}%" for s, v in sorted(in_zone.items()))
            found.append(
                Finding(
                    "ZA110",
                    "zone-unbalanced",
                    Severity.WARNING,
                    coll.namespace,
                    f"in zone {zone}, {heavy} holds {100 * most / total:.0f}% of "
                    f"{coll.namespace}'s zoned data ({shares}); fair share is "
                    f"{100 / len(shards):.0f}%",
                    "Check that balancing is on for the collection and the balancer window is "
                    "long enough, or that jumbo chunks are not pinning the data.",
                    "$shardedDataDistribution" if coll.distribution else "config metadata",
                )
            )
    return found, by_zone


def backlog(
    coll: CollectionInput, boundary: Any, field: str, hot_shards: Sequence[str]
) -> tuple[int, int]:
    """Chunks (and of them on hot shards) wholly below the firehose boundary."""
    below = on_hot = 0
    for chunk in coll.chunks:
        top = chunk.max.get(field)
        if top is None or is_max_key(top):
            continue
        if sort_key(top) <= sort_key(boundary):
            below += 1
            on_hot += int(chunk.shard in hot_shards)
    return below, on_hot


def _bytes_per_chunk(coll: CollectionInput) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in coll.chunks:
        counts[c.shard] = counts.get(c.shard, 0) + 1
    if not coll.distribution:
        return {s: 1 for s in counts}
    return {s: coll.distribution.get(s, (0, 0))[1] // n for s, n in counts.items() if n}


def _global(bound: Mapping[str, Any]) -> bool:
    return all(is_min_key(v) for v in bound.values()) or all(is_max_key(v) for v in bound.values())
