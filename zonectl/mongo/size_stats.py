"""collStats of many collections at once (where `$shardedDataDistribution` is missing: before
6.0.3, or refused): one command per collection, sent from a few threads so the latency of a
distant mongos is paid about once, not once per namespace; and the wording of a refusal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.mongo.connect import Connection

THREADS = 8  # at once: a few connections of the client's pool, not a storm on the mongos
UNAUTHORIZED = 13


def refusal(exc: PyMongoError, privilege: str) -> str:
    """Why a size read was refused: the missing privilege when unauthorized, else the error."""
    if isinstance(exc, OperationFailure) and exc.code == UNAUTHORIZED:
        return f"not authorized: needs {privilege}"
    return redact(str(getattr(exc, "details", None) or exc))[:200]


def _stats(conn: Connection, ns: str) -> dict[str, int] | None:
    db, _, name = ns.partition(".")
    reply = conn.client[db].command("collStats", name)
    shards = reply.get("shards")
    if not isinstance(shards, Mapping):
        return None
    return {str(s): int(v.get("size") or 0) for s, v in shards.items()}


def read_stats_concurrently(
    conn: Connection, namespaces: Sequence[str]
) -> tuple[dict[str, dict[str, int] | None], str | None]:
    """ns -> bytes per shard (None where collStats has no per-shard answer, e.g. an
    unsharded or missing collection), and the refusal when the server refused it."""
    found: dict[str, dict[str, int] | None] = {}
    refused: str | None = None

    def one(ns: str) -> tuple[str, dict[str, int] | None, Any]:
        try:
            return ns, _stats(conn, ns), None
        except OperationFailure as exc:
            return ns, None, exc
        except PyMongoError as exc:
            raise ClusterError(
                f"{conn.uri}: collStats of {ns} failed: {redact(str(exc))}"
            ) from None

    with ThreadPoolExecutor(min(THREADS, len(namespaces)) or 1) as pool:
        for ns, stats, exc in pool.map(one, namespaces):
            found[ns] = stats
            if exc is not None and exc.code == UNAUTHORIZED and refused is None:
                refused = refusal(exc, f"the collStats action on {ns} (clusterMonitor)")
    return found, refused
