"""Impact estimates of range ops from the few chunks a targeted query found. Pure: the
mongo layer reads the chunks (and golden tests list them), this module counts.

A new range makes the balancer move every chunk in it that sits on a shard outside the
zone (reference §5.4); a chunk straddling a bound is split first and counted whole. A
removed range only lifts the constraint, so it moves nothing by itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from zonectl.model.cluster import ClusterState
from zonectl.model.keys import sort_key
from zonectl.plan.op_base import Impact, RangeChange
from zonectl.plan.plan import Plan

MIB = 1024 * 1024


def default_chunk_bytes(version: str) -> int:
    """The cluster-wide default maximum chunk size: 64 MB up to 5.0, 128 MB from 6.0 (§2.5)."""
    try:
        major = int(version.split(".")[0])
    except ValueError:
        major = 7
    return (128 if major >= 6 else 64) * MIB


def zone_shards_after(plan: Plan, actual: ClusterState) -> dict[str, frozenset[str]]:
    """zone -> shards carrying it once the plan's membership ops have run."""
    holders: dict[str, set[str]] = {}
    for shard in actual.shards:
        for zone in shard.zones:
            holders.setdefault(zone, set()).add(shard.id)
    for op in plan.ops:
        change = op.membership_change()
        if change is None:
            continue
        if change.joins:
            holders.setdefault(change.zone, set()).add(change.shard)
        else:
            holders.get(change.zone, set()).discard(change.shard)
    return {zone: frozenset(shards) for zone, shards in holders.items()}


# Bytes of the part of a chunk that migrates: (min, max, shard, share of the chunk).
SizeOf = Callable[[Mapping[str, Any], Mapping[str, Any], str, float], int]


def estimate_impact(
    op: RangeChange,
    chunks: Iterable[Mapping[str, Any]],
    zone_shards: frozenset[str],
    chunk_bytes: int,
    size_of: SizeOf | None = None,
    *,
    unread: int = 0,
) -> Impact:
    """Count the chunks overlapping the op's range; for an assignment, those outside the
    zone's shards migrate: the part inside the range, once split at its bounds. Bytes: by
    `size_of` (the one size source the forecast shares), else the chunk's
    `estimatedDataSizeBytes` (6.x+ after some operations, §2.3), else half the maximum
    chunk size, since chunks split when they reach the maximum. `unread`: chunks inside
    the range that were counted, not read (added to the count)."""
    total = migrating = size = 0
    op_lo, op_hi = sort_key(op.min), sort_key(op.max)
    adds = op.adds
    for chunk in chunks:
        lo_key, hi_key = sort_key(chunk["min"]), sort_key(chunk["max"])
        if not (lo_key < op_hi and op_lo < hi_key):  # half-open ranges overlap
            continue
        total += 1
        if adds and chunk.get("shard") not in zone_shards:
            migrating += 1
            if size_of is None:
                size += int(chunk.get("estimatedDataSizeBytes") or chunk_bytes // 2)
                continue
            cut_lo = lo_key < op_lo
            cut_hi = hi_key > op_hi
            lo, hi = (op.min if cut_lo else chunk["min"]), (op.max if cut_hi else chunk["max"])
            size += size_of(lo, hi, str(chunk.get("shard")), 1.0 / (1 + cut_lo + cut_hi))
    return Impact(chunks=total + unread, migrating=migrating, bytes=size)


def make_impacts(
    plan: Plan,
    actual: ClusterState,
    chunks_by_op: Mapping[int, Iterable[Mapping[str, Any]]],
    chunk_bytes: Mapping[str, int],
    size_of: Callable[[str], SizeOf] | None = None,
    unread: Mapping[int, int] | None = None,
) -> dict[int, Impact]:
    """Impact per range op index, from the chunks read for it and each namespace's max
    chunk size (missing namespaces: the version default), or `size_of(ns)`; `unread`:
    per op index, chunks counted inside its range but not read (added to its count)."""
    zones = zone_shards_after(plan, actual)
    default = default_chunk_bytes(actual.version)
    none: frozenset[str] = frozenset()
    unread = unread or {}
    impacts: dict[int, Impact] = {}
    for index, chunks in chunks_by_op.items():
        change = plan.ops[index].range_change()
        if change is not None:
            impacts[index] = estimate_impact(
                change,
                chunks,
                zones.get(change.zone, none),
                chunk_bytes.get(change.ns, default),
                size_of(change.ns) if size_of is not None else None,
                unread=unread.get(index, 0),
            )
    return impacts
