"""Read the cluster model into the balancer policy's plain views, and pick split keys.

The sandbox holds chunk sizes, not documents, so where MongoDB asks the shard for split
keys (`splitVector` / `autoSplitVector`) the sandbox interpolates on the first shard-key
field: numbers and dates can be split, anything else is indivisible (a departure the
sandbox has to make; it only decides whether a large chunk ends up split or jumbo).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from bson import Decimal128, Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.balancer.policy import NO_ZONE, ChunkView, CollectionView, ShardView
from zonectl.sandbox.balancer.settings import BalancerSettings
from zonectl.sandbox.bounds import is_prefix_of, pad_bound
from zonectl.sandbox.keyorder import compare, encode

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.chunks import ChunkStore
    from zonectl.sandbox.catalog.cluster import Cluster


@dataclass(frozen=True)
class ZoneRange:
    min: dict[str, Any]  # filled in to the full shard key
    max: dict[str, Any]
    zone: str


def shard_views(cluster: Cluster) -> list[ShardView]:
    """Shards in id order (the order `ShardStatistics` come in)."""
    docs = sorted(cluster.shard_docs(), key=lambda d: str(d["_id"]))
    return [
        ShardView(str(d["_id"]), frozenset(d.get("tags", [])), bool(d.get("draining", False)))
        for d in docs
    ]


def max_chunk_size_bytes(cluster: Cluster, ns: str, settings: BalancerSettings) -> int:
    """Per-collection `maxChunkSizeBytes` (5.3/6.0+), else the global chunk size."""
    doc = cluster.collection_doc(ns) or {}
    if cluster.version.has_configure_collection_balancing and doc.get("maxChunkSizeBytes"):
        return int(doc["maxChunkSizeBytes"])
    return settings.max_chunk_size_bytes


def balanceable(doc: Mapping[str, Any], has_defragmentation: bool) -> bool:
    """§5.1 step 3: noBalance, allowMigrations/permitMigrations false, defragmentation."""
    if doc.get("noBalance"):
        return False
    if doc.get("allowMigrations", True) is False or doc.get("permitMigrations", True) is False:
        return False
    return not (has_defragmentation and doc.get("defragmentCollection"))


def zone_ranges(cluster: Cluster, ns: str, key: Mapping[str, Any]) -> list[ZoneRange]:
    """The collection's ranges with bounds extended to the full key with MinKey
    (`createCollectionZoneInfo`), sorted by min."""
    out = []
    for zr in cluster.zone_ranges(ns):
        if is_prefix_of(zr.min, key) and is_prefix_of(zr.max, key):
            out.append(ZoneRange(pad_bound(zr.min, key), pad_bound(zr.max, key), zr.zone))
    return out


def split_points(store: ChunkStore, ranges: Sequence[ZoneRange]) -> list[tuple[int, list[Any]]]:
    """§5.1 step 2: zone boundaries strictly inside a chunk, per chunk index (ascending).

    The global max is never strictly inside a chunk, so it is never a split point.
    """
    found: dict[int, list[Any]] = {}
    for rng in ranges:
        for bound in (rng.min, rng.max):
            i = store.find(bound)
            if compare(store.min_at(i), bound) < 0 and compare(bound, store.max_at(i)) < 0:
                points = found.setdefault(i, [])
                if all(compare(p, bound) != 0 for p in points):
                    points.append(bound)
    return [(i, sorted(found[i], key=encode)) for i in sorted(found)]


def chunk_zones(store: ChunkStore, ranges: Sequence[ZoneRange]) -> list[str]:
    """§5.2 per chunk: the zone of the range wholly containing it, else NO_ZONE.

    Found by bisecting each range's bounds, so only the chunk at a range's end is read.
    """
    zones = [NO_ZONE] * len(store)
    for rng in ranges:
        first = store.bisect_min(rng.min)  # first chunk whose min >= range min
        end = store.bisect_min(rng.max)  # chunks before `end` start below range max
        if end <= first:
            continue
        last = end if compare(store.max_at(end - 1), rng.max) <= 0 else end - 1
        zones[first:last] = [rng.zone] * (last - first)
    return zones


def collection_view(cluster: Cluster, ns: str, settings: BalancerSettings) -> CollectionView | None:
    store = cluster.chunks(ns)
    doc = cluster.collection_doc(ns)
    if store is None or doc is None:
        return None
    ranges = zone_ranges(cluster, ns, doc["key"])

    def chunk(i: int) -> ChunkView:
        return ChunkView(i, store.min_at(i), store.max_at(i), store.shard_at(i), store.size_at(i))

    return CollectionView(
        ns=ns,
        shards=store.shards(),
        sizes=store.sizes()[0],
        zones=chunk_zones(store, ranges),
        range_zones=frozenset(r.zone for r in ranges),
        max_chunk_size_bytes=max_chunk_size_bytes(cluster, ns, settings),
        chunk=chunk,
        is_jumbo=store.jumbo_at,
        straddling=bool(split_points(store, ranges)),
        balanceable=balanceable(doc, cluster.version.has_defragmentation),
    )


def _interpolate_value(lo: Any, hi: Any, fraction: float) -> Any:
    if isinstance(lo, bool) or isinstance(hi, bool):
        return None
    if isinstance(lo, int) and isinstance(hi, int):
        value = int(lo + (hi - lo) * fraction)
        return Int64(value) if isinstance(lo, Int64) else value
    if isinstance(lo, int | float | Decimal128) and isinstance(hi, int | float | Decimal128):
        a = float(lo.to_decimal() if isinstance(lo, Decimal128) else lo)
        b = float(hi.to_decimal() if isinstance(hi, Decimal128) else hi)
        value_f = a + (b - a) * fraction
        return Decimal128(Decimal(str(value_f))) if isinstance(lo, Decimal128) else value_f
    if isinstance(lo, dt.datetime) and isinstance(hi, dt.datetime):
        return lo + (hi - lo) * fraction
    return None


def interpolate_key(
    lo: Mapping[str, Any],
    hi: Mapping[str, Any],
    fraction: float,
    extent: tuple[Any, Any] | None = None,
) -> dict[str, Any] | None:
    """A full key about `fraction` of the way from lo to hi, strictly inside, or None.
    `extent` (`ChunkStore.extent`) stands in for a MinKey or MaxKey end."""
    names = list(lo)
    if not names:
        return None
    first = names[0]
    a, b = lo[first], hi[first]
    if extent is not None:
        a = extent[0] if isinstance(a, MinKey) else a
        b = extent[1] if isinstance(b, MaxKey) else b
    value = _interpolate_value(a, b, fraction)
    if value is None:
        return None
    point = {name: (value if name == first else MinKey()) for name in names}
    if compare(lo, point) < 0 and compare(point, hi) < 0:
        return point
    return None


def split_keys_for_size(store: ChunkStore, i: int, max_bytes: int) -> list[dict[str, Any]]:
    """Split keys cutting chunk i into pieces of at most `max_bytes` (splitVector), or []."""
    size, count = store.size_at(i), store.count_at(i)
    if size <= max_bytes or count <= 1:
        return []
    pieces = min(-(-size // max_bytes), count)
    lo, hi = store.min_at(i), store.max_at(i)
    points: list[dict[str, Any]] = []
    for k in range(1, pieces):
        point = interpolate_key(lo, hi, k / pieces, store.extent)
        if point is None:
            return []
        if points and compare(points[-1], point) >= 0:
            continue
        points.append(point)
    return points
