"""apply's DrainReader (zonectl/apply/ports.py) on an open connection: what a shard being
removed still holds, read afresh as plan reads it (mongo/drain_read.py); and the shards
config.shards marks draining, for `zonectl recover`."""

from __future__ import annotations

from zonectl.model.shard_lifecycle import ShardDrain
from zonectl.mongo.connect import Connection
from zonectl.mongo.drain_read import read_drains
from zonectl.mongo.state import read_cluster_state


class MongoDrains:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def read_drain(self, shard: str) -> ShardDrain:
        actual = read_cluster_state(self.conn, ())
        return read_drains(self.conn, actual, [shard])[shard]

    def read_draining(self) -> list[ShardDrain]:
        """Every shard config.shards marks draining, with what it holds."""
        actual = read_cluster_state(self.conn, ())
        draining = sorted(s.id for s in actual.shards if s.draining)
        drains = read_drains(self.conn, actual, draining) if draining else {}
        return [drains[s] for s in draining]
