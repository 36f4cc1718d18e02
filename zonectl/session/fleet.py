"""What a fleet run reads of each cluster before running the command on it: the shards it
has, against which its overlay is checked (zonectl.inventory.check_overlay_shards)."""

from __future__ import annotations

from zonectl.mongo.connect import Connection
from zonectl.mongo.state import read_cluster_state


def live_shards(conn: Connection) -> set[str]:
    """The ids of the cluster's shards (config.shards, draining ones too)."""
    return {s.id for s in read_cluster_state(conn, ()).shards}
