"""The namespaces a cluster has, to check `--namespace` names against: the collections in
config.collections, the namespaces with zone ranges, and the collections and views of the
databases asked about (one listCollections each)."""

from __future__ import annotations

from collections.abc import Collection

from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.mongo.connect import Connection
from zonectl.mongo.state import WHOLE


def read_namespaces(conn: Connection, databases: Collection[str] = ()) -> frozenset[str]:
    """Every namespace config.collections lists (4.4's dropped entries aside) or config.tags
    gives ranges, and every collection or view of `databases`."""
    config = conn.client.config
    try:
        found = {
            str(d["_id"])
            for d in config.collections.find({}, {"_id": 1, "dropped": 1}, batch_size=WHOLE)
            if not d.get("dropped")
        }
        found |= {str(d["ns"]) for d in config.tags.find({}, {"_id": 0, "ns": 1}, batch_size=WHOLE)}
        for db in sorted(databases):
            found |= {f"{db}.{d['name']}" for d in conn.client[db].list_collections()}
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: listing namespaces failed: {redact(str(exc))}") from None
    return frozenset(found)
