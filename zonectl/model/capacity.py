"""Each shard's volume (read by `zonectl.mongo.volume_read` from one dbStats through mongos),
the disk limit the policy sets, and what a plan would add to each volume (computed by
`zonectl.capacity`, carried by the plan, read by the views and by apply's refusal)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from zonectl.diagnostics import Position


@dataclass(frozen=True)
class ShardVolume:
    """One shard's volume and one database's share of it, as dbStats reports them under
    `raw` (capacity.md): the filesystem holding the dbpath, and the database's sizes."""

    shard: str
    used_bytes: int | None  # fsUsedSize; None: the shard reported no filesystem sizes
    total_bytes: int | None  # fsTotalSize
    storage_bytes: int = 0  # storageSize: the database's collections on disk (compressed)
    index_bytes: int = 0  # indexSize
    free_storage_bytes: int = 0  # freeStorageSize: reusable space inside its files
    data_bytes: int = 0  # dataSize (uncompressed): with storage_bytes, the compression ratio

    @property
    def known(self) -> bool:
        """Both sizes reported: a shard on an in-memory engine omits them, and one whose
        statfs of the dbpath fails answers -1 for both (mongo:src/mongo/db/catalog/
        database_impl.cpp, getStats)."""
        used, total = self.used_bytes, self.total_bytes
        return used is not None and used >= 0 and total is not None and total > 0


@dataclass(frozen=True)
class DiskLimit:
    """The share of a volume a plan may fill: `disk: {limit: "85%"}` (cluster) or in a
    shard's long form; MongoDB itself has none since 6.2 removed addShard's maxSize."""

    ratio: float  # 0 < ratio <= 1
    text: str  # as written, "85%"
    position: Position | None = dataclasses.field(default=None, compare=False)


DEFAULT_LIMIT = DiskLimit(0.85, "85%")

# The ways data reaches a shard that a plan starts: zone ranges' chunks (apply --migrate or
# the balancer), a resharding's copy, a drained shard's chunks, a moveCollection.
ROUTES = ("ranges", "reshard", "drain", "move_collection")


@dataclass(frozen=True)
class RouteLoad:
    """What one route of the plan brings to one shard."""

    route: str  # one of ROUTES
    incoming_bytes: int  # uncompressed bytes arriving (the plan's impact estimates)
    added_bytes: int  # on the volume: compressed, less the free space it reuses
    sources: tuple[str, ...] = ()  # the namespaces (or drained shards) it comes from


@dataclass(frozen=True)
class ShardProjection:
    """One shard's volume now and once the plan has run."""

    shard: str
    total_bytes: int
    used_bytes: int
    limit_ratio: float
    limit_text: str  # "85%", as the policy (or the default) says it
    routes: tuple[RouteLoad, ...] = ()
    reused_bytes: int = 0  # free space inside its files the incoming data fills first

    @property
    def added_bytes(self) -> int:
        return sum(r.added_bytes for r in self.routes)

    @property
    def projected_bytes(self) -> int:
        return self.used_bytes + self.added_bytes

    @property
    def limit_bytes(self) -> int:
        return int(self.total_bytes * self.limit_ratio)

    @property
    def over_before(self) -> bool:
        """Past its limit before the change."""
        return self.used_bytes > self.limit_bytes

    @property
    def blocked(self) -> bool:
        """The plan would take it past its limit, or add to a volume already past it."""
        return self.added_bytes > 0 and self.projected_bytes > self.limit_bytes


@dataclass(frozen=True)
class CapacityReport:
    """Every shard's volume now and after the plan, from the dbStats of `database`."""

    database: str  # the database whose dbStats was read ("" when none was)
    shards: tuple[ShardProjection, ...] = ()

    @property
    def blocked(self) -> tuple[ShardProjection, ...]:
        return tuple(s for s in self.shards if s.blocked)

    @property
    def over_before(self) -> tuple[ShardProjection, ...]:
        return tuple(s for s in self.shards if s.over_before)
