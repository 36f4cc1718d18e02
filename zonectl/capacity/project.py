"""Each shard's volume once the plan has run: used now, plus what each route brings stored
compressed, less the free space WiredTiger reuses inside the files (capacity.md), against
the shard's limit. Pure: the volumes were read (ClusterState.volumes), the loads computed
(zonectl.capacity.loads)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from zonectl.capacity.loads import Load, Loads
from zonectl.model.capacity import ROUTES, CapacityReport, RouteLoad, ShardProjection, ShardVolume
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState

# A resharding writes a new collection beside the old one: no free space of the old
# collection's files is reused (they are dropped at the commit).
_REUSES = ("ranges", "drain", "move_collection")


def stored_ratio(volumes: Mapping[str, ShardVolume]) -> float:
    """Bytes on disk (collections and indexes) per uncompressed byte of the database read,
    over every shard holding some of it; 1.0 (no compression) when none does."""
    data = sum(v.data_bytes for v in volumes.values())
    stored = sum(v.storage_bytes + v.index_bytes for v in volumes.values())
    return stored / data if data > 0 and stored > 0 else 1.0


def project(
    loads: Loads, actual: ClusterState, desired: DesiredState, database: str
) -> tuple[CapacityReport | None, list[str]]:
    """The report (None when no volume was read) and the notices: dbStats not allowed, or a
    shard that receives data and reports no filesystem sizes."""
    volumes = actual.volumes
    if volumes is None:
        why = actual.volumes_unread or "not read"
        return None, [
            f"disk capacity not checked: dbStats on {database} {why}; "
            "this plan is made without the disk guard"
        ]
    notices = [
        f"disk capacity of shard {shard} not checked: it reports no filesystem sizes "
        f"(fsUsedSize/fsTotalSize) in dbStats on {database}; it receives data in this plan"
        for shard in sorted(loads)
        if not (shard in volumes and volumes[shard].known)
    ]
    ratio = stored_ratio(volumes)
    shards = tuple(
        _projection(volumes[s.id], loads.get(s.id, {}), ratio, desired)
        for s in actual.shards
        if s.id in volumes and volumes[s.id].known
    )
    return CapacityReport(database, shards), notices


def _projection(
    volume: ShardVolume, routes: Mapping[str, Load], ratio: float, desired: DesiredState
) -> ShardProjection:
    limit = desired.limit_of(volume.shard)
    free = volume.free_storage_bytes
    reused = 0
    loads: list[RouteLoad] = []
    for route in ROUTES:
        load = routes.get(route)
        if load is None or not load.incoming:
            continue
        incoming = load.incoming
        stored = math.ceil(incoming * ratio)
        reuse = min(free, stored) if route in _REUSES else 0
        free -= reuse
        reused += reuse
        loads.append(RouteLoad(route, incoming, stored - reuse, tuple(sorted(load.sources))))
    return ShardProjection(
        volume.shard,
        volume.total_bytes or 0,
        volume.used_bytes or 0,
        limit.ratio,
        limit.text,
        tuple(loads),
        reused,
    )
