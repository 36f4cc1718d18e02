"""The only pymongo user besides the sandbox: connect to a mongos, read the live state and
chunk counts, and implement apply's ports (executor, lease, journal, balancing, audit)."""

from __future__ import annotations

from zonectl.mongo.connect import Connection, connect
from zonectl.mongo.impact import read_impacts
from zonectl.mongo.state import build_cluster_state, read_cluster_state

__all__ = ["Connection", "build_cluster_state", "connect", "read_cluster_state", "read_impacts"]
