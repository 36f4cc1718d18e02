"""The reads metrics need beyond `status`: balancer migrations in flight per namespace, and
when each window last moved, from zonectl's audit records. Read-only."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.mongo.connect import Connection


def read_migrations_in_flight(conn: Connection) -> dict[str, int] | None:
    """ns -> chunk migrations in flight: from `config.migrations`, which only 4.4-6.x keep
    (reference §2.6, mongo:src/mongo/s/catalog/type_migration.cpp), and from 7.0 from
    `$currentOp`, where each donor shard runs the config server's `_shardsvrMoveRange`
    (mongo:src/mongo/db/s/shardsvr_move_range_command.cpp). None for a user who may not
    read them (`inprog` is needed for $currentOp of every user's operations)."""
    major = int(conn.version.split(".")[0]) if conn.version[:1].isdigit() else 7
    if major >= 7:
        return _read_donor_ops(conn)
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


def _read_donor_ops(conn: Connection) -> dict[str, int] | None:
    pipeline: list[dict[str, Any]] = [
        {"$currentOp": {"allUsers": True, "idleConnections": False}},
        {"$match": {"command._shardsvrMoveRange": {"$exists": True}}},
        {"$project": {"_id": 0, "shard": 1, "command": 1}},
    ]
    try:
        ops = list(conn.client.admin.aggregate(pipeline))
    except OperationFailure as exc:
        if exc.code == 13:  # Unauthorized: no `inprog`; unknown, which is not 0
            return None
        raise ClusterError(f"{conn.uri}: reading $currentOp failed: {redact(str(exc))}") from None
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: reading $currentOp failed: {redact(str(exc))}") from None
    # A second identical request joins the running migration (active_migrations_registry.cpp)
    # and shows as a second command op: count each donor's range once.
    seen: dict[str, set[str]] = {}
    for op in ops:
        command = op.get("command", {})
        ns = str(command.get("_shardsvrMoveRange"))
        seen.setdefault(ns, set()).add(f"{op.get('shard')}|{command.get('min')}")
    return {ns: len(ranges) for ns, ranges in seen.items()}


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
