"""Read the cluster model into the balancer policy's plain views, and pick split keys.

The sandbox holds chunk sizes, not documents, so where MongoDB asks the shard for split
keys (`splitVector` / `autoSplitVector`) the sandbox interpolates on the first shard-key
field: numbers and dates can be split, anything else is indivisible (a departure the
sandbox has to make; it only decides whether a large chunk ends up split or jumbo).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from bson import Decimal128, Int64
from bson.min_key import MinKey

from zonectl.model.keys import compare, is_prefix_of, pad_bound
from zonectl.sandbox.balancer_policy import ChunkView, CollectionView, ShardView, ZoneRange
from zonectl.sandbox.balancer_settings import BalancerSettings

if TYPE_CHECKING:
    from zonectl.sandbox.chunks import ChunkStore
    from zonectl.sandbox.cluster import Cluster


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
    if cluster.sandbox.version.has_configure_collection_balancing and doc.get("maxChunkSizeBytes"):
        return int(doc["maxChunkSizeBytes"])
    return settings.max_chunk_size_bytes


def balanceable(doc: Mapping[str, Any], has_defragmentation: bool) -> bool:
    """§5.1 step 3: noBalance, allowMigrations/permitMigrations false, defragmentation."""
    if doc.get("noBalance"):
        return False
    if doc.get("allowMigrations", True) is False or doc.get("permitMigrations", True) is False:
        return False
    return not (has_defragmentation and doc.get("defragmentCollection"))


def collection_view(cluster: Cluster, ns: str, settings: BalancerSettings) -> CollectionView | None:
    store = cluster.chunks(ns)
    doc = cluster.collection_doc(ns)
    if store is None or doc is None:
        return None
    key = doc["key"]
    chunks = [ChunkView(c.min, c.max, c.shard, c.jumbo, c.size) for c in store]
    ranges = []
    for zr in cluster.zone_ranges(ns):
        # createCollectionZoneInfo extends each stored bound to the full key with MinKey.
        if is_prefix_of(zr.min, key) and is_prefix_of(zr.max, key):
            ranges.append(ZoneRange(pad_bound(zr.min, key), pad_bound(zr.max, key), zr.zone))
    return CollectionView(
        ns=ns,
        chunks=chunks,
        ranges=ranges,
        max_chunk_size_bytes=max_chunk_size_bytes(cluster, ns, settings),
        balanceable=balanceable(doc, cluster.sandbox.version.has_defragmentation),
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
    lo: Mapping[str, Any], hi: Mapping[str, Any], fraction: float
) -> dict[str, Any] | None:
    """A full key about `fraction` of the way from lo to hi, strictly inside, or None."""
    names = list(lo)
    if not names:
        return None
    first = names[0]
    value = _interpolate_value(lo[first], hi[first], fraction)
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
        point = interpolate_key(lo, hi, k / pieces)
        if point is None:
            return []
        if points and compare(points[-1], point) >= 0:
            continue
        points.append(point)
    return points
