"""The mongo implementations behind apply's ports (zonectl/apply/ports.py), for apply,
rotate and recover, on one open connection."""

from __future__ import annotations

from collections.abc import Collection

from zonectl.apply.ports import Ports
from zonectl.model.cluster import ClusterState
from zonectl.mongo.audit import MongoAudit
from zonectl.mongo.balancing import MongoBalancing
from zonectl.mongo.chunks_read import MongoChunks
from zonectl.mongo.connect import Connection
from zonectl.mongo.drain_ports import MongoDrains
from zonectl.mongo.executor import bind
from zonectl.mongo.journal import MongoJournal
from zonectl.mongo.lease import MongoLease
from zonectl.mongo.move_watch import MongoMoveWatch
from zonectl.mongo.reshard_read import MongoReshard
from zonectl.mongo.settings_read import MongoOnce
from zonectl.mongo.state import read_cluster_state
from zonectl.mongo.unsharded_read import MongoUnsharded


def build_ports(conn: Connection, database: str) -> Ports:
    """Ports on `conn`; the lease, journal, audit and memos in zonectl's `database`."""
    client = conn.client

    def read_state(namespaces: Collection[str]) -> ClusterState:
        return read_cluster_state(conn, namespaces)

    return Ports(
        send=bind(client),
        read_state=read_state,
        lease=MongoLease(client, database),
        journal=MongoJournal(client, database),
        balancing=MongoBalancing(client),
        chunks=MongoChunks(client, conn.version),
        audit=MongoAudit(client, database),
        version=conn.version,
        unsharded=MongoUnsharded(conn),
        reshard=MongoReshard(conn),
        memos=MongoOnce(client, database),
        moves=MongoMoveWatch(client),
        drains=MongoDrains(conn),
        clock=conn.clock,
        down_s=conn.down_s,
    )
