"""balancerCollectionStatus of many collections (4.4+, reference §3.3): one admin command per
collection with no bulk form, so they are sent from a few threads at once and a distant
mongos's latency is paid about once, not once per collection."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.mongo.connect import Connection

Doc = Mapping[str, Any]
THREADS = 8  # at once: a few connections of the client's pool, not a storm on the mongos
_GOSSIP = {"ok", "$clusterTime", "operationTime"}


def read_collection_status(conn: Connection, ns: str) -> tuple[Doc | None, str | None]:
    """balancerCollectionStatus of `ns`; its absence is not an error."""
    try:
        reply = conn.client.admin.command({"balancerCollectionStatus": ns})
    except OperationFailure as exc:
        if exc.code == 59:  # CommandNotFound: the server predates it
            return None, "not available on this server version"
        return None, f"failed: {exc.details.get('codeName') if exc.details else exc.code}"
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: balancerCollectionStatus failed: {redact(str(exc))}"
        ) from None
    return {k: v for k, v in reply.items() if k not in _GOSSIP}, None


def read_collection_statuses(
    conn: Connection, namespaces: Sequence[str]
) -> dict[str, tuple[Doc | None, str | None]]:
    """ns -> (reply, note) for each of `namespaces`, sent concurrently."""
    if not namespaces:
        return {}
    with ThreadPoolExecutor(min(THREADS, len(namespaces))) as pool:
        replies = pool.map(lambda ns: read_collection_status(conn, ns), namespaces)
        return dict(zip(namespaces, replies, strict=True))
