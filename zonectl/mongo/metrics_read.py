"""The reads metrics need beyond `status`: balancer migrations in flight per namespace, and
when each window last moved, from zonectl's audit records. Read-only."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.mongo.connect import Connection


def read_migrations_in_flight(conn: Connection) -> dict[str, int] | None:
    """ns -> balancer migrations in flight, from `config.migrations`, which only 4.4-6.x
    keep (reference §2.6, mongo:src/mongo/s/catalog/type_migration.cpp); None from 7.0,
    whose donor shards keep that state where a router cannot list it per namespace, and
    None for a user who may not read it."""
    major = int(conn.version.split(".")[0]) if conn.version[:1].isdigit() else 7
    if major >= 7:
        return None
    try:
        docs = conn.client.config.migrations.aggregate(
            [{"$group": {"_id": "$ns", "n": {"$sum": 1}}}]
        )
        return {str(d["_id"]): int(d["n"]) for d in docs}
    except OperationFailure as exc:
        if exc.code == 13:  # Unauthorized: unknown, which is not 0
            return None
        raise ClusterError(
            f"{conn.uri}: reading config.migrations failed: {redact(str(exc))}"
        ) from None
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading config.migrations failed: {redact(str(exc))}"
        ) from None


def read_last_rotations(
    conn: Connection, database: str, namespaces: Collection[str]
) -> dict[str, dt.datetime] | None:
    """ns -> end of the last successful apply or rotate whose plan changed its ranges.

    Taken from the audit record each run that sent something writes (apply/run.py), so
    it costs no write of its own: a rotate with nothing due writes nothing, and nothing
    moved either. Records from before `range_namespaces` existed are not counted. None
    when the user may not read zonectl's database (a read-only CI role, say)."""
    found: dict[str, dt.datetime] = {}
    audit = conn.client[database]["audit"]
    try:
        for ns in sorted(namespaces):
            doc = audit.find_one(
                {"outcome": "done", "range_namespaces": ns},
                {"ended": 1},
                sort=[("ended", -1)],
            )
            ended = doc.get("ended") if doc is not None else None
            if isinstance(ended, dt.datetime):
                found[ns] = ended if ended.tzinfo else ended.replace(tzinfo=dt.UTC)
    except OperationFailure as exc:
        if exc.code == 13:  # Unauthorized
            return None
        raise ClusterError(
            f"{conn.uri}: reading zonectl's audit records failed: {redact(str(exc))}"
        ) from None
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading zonectl's audit records failed: {redact(str(exc))}"
        ) from None
    return found
