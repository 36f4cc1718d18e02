"""Plain-value builders for planner tests: DesiredState and ClusterState without I/O."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.diagnostics import Position
from zonectl.model.cluster import ClusterState, LiveBalancer, LiveCollection, LiveRange, LiveShard
from zonectl.model.desired import CollectionPolicy, DesiredState, ZoneRange

MIN = MinKey()
MAX = MaxKey()
AT = dt.datetime(2026, 1, 10, 12, 0, tzinfo=dt.UTC)
SHARDS = ("shard-fast-0", "shard-fast-1", "shard-std-0", "shard-std-1")


def cluster(
    zones: dict[str, tuple[str, ...]] | None = None,
    collections: dict[str, dict[str, Any]] | None = None,
    ranges: list[LiveRange] | None = None,
    balancer: LiveBalancer | None = None,
) -> ClusterState:
    zones = zones or {}
    return ClusterState(
        version="7.0.14",
        shards=tuple(LiveShard(s, f"rs-{s}/h:27018", zones.get(s, ())) for s in SHARDS),
        collections={
            ns: LiveCollection(ns, key, uuid=None)
            for ns, key in (collections or {"app.users": {"country": 1, "userId": 1}}).items()
        },
        ranges=tuple(ranges or ()),
        balancer=balancer or LiveBalancer(),
    )


def live(ns: str, zone: str, lo: dict[str, Any], hi: dict[str, Any]) -> LiveRange:
    return LiveRange(ns, zone, lo, hi)


def want(zone: str, lo: dict[str, Any], hi: dict[str, Any], line: int = 0) -> ZoneRange:
    return ZoneRange(zone, lo, hi, Position("policy.yaml", line, 7) if line else None)


def policy(
    shards: dict[str, set[str]] | None = None,
    **collections: CollectionPolicy,
) -> DesiredState:
    return DesiredState(
        shards={s: frozenset(z) for s, z in (shards or {}).items()},
        collections={c.namespace: c for c in collections.values()},
        sources=("policy.yaml",),
        digest="sha256:test",
    )


def users(*ranges: ZoneRange, **kw: Any) -> CollectionPolicy:
    """`app.users: {ranges: [...]}`: it names `ranges` (so none at all means no zones)."""
    kw.setdefault("names_ranges", True)
    return CollectionPolicy(
        "app.users", ranges=tuple(ranges), position=Position("policy.yaml", 9, 3), **kw
    )


def country(code: str) -> dict[str, Any]:
    return {"country": code, "userId": MIN}
