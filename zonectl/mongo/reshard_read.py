"""Reading what a key change needs: the reshardings running (config.reshardingOperations),
the indexes of a collection whose key the policy changes (listIndexes), and a running
resharding's progress as the server reports it ($currentOp; manual, reshardCollection,
"Monitor the resharding operation")."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import LiveResharding, ReshardProgress
from zonectl.mongo.chunks_read import MongoChunks
from zonectl.mongo.connect import Connection
from zonectl.plan.ops import Impact
from zonectl.plan.plan import Plan


def read_reshardings(conn: Connection) -> list[LiveResharding]:
    """reshardCollection operations in flight (moveCollection's are LiveMove, elsewhere)."""
    try:
        docs = list(
            conn.client.config.reshardingOperations.find({"provenance": {"$ne": "moveCollection"}})
        )
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading config.reshardingOperations failed: {redact(str(exc))}"
        ) from None
    return reshardings_of(docs)


def reshardings_of(docs: Iterable[Mapping[str, Any]]) -> list[LiveResharding]:
    """The reshardCollection operations among config.reshardingOperations documents."""
    return [
        LiveResharding(
            str(d.get("ns")), dict(d.get("reshardingKey") or {}), str(d.get("state", "")),
            d.get("startTime"),
        )
        for d in docs
        if d.get("provenance") != "moveCollection"
    ]  # fmt: skip


def read_indexes(
    conn: Connection, namespaces: Collection[str]
) -> dict[str, tuple[Mapping[str, Any], ...]]:
    out: dict[str, tuple[Mapping[str, Any], ...]] = {}
    for ns in sorted(namespaces):
        db, coll = ns.split(".", 1)
        try:
            out[ns] = tuple(dict(s) for s in conn.client[db][coll].list_indexes())
        except OperationFailure:
            out[ns] = ()
        except PyMongoError as exc:
            raise ClusterError(
                f"{conn.uri}: listIndexes on {ns} failed: {redact(str(exc))}"
            ) from None
    return out


def read_progress(conn: Connection, ns: str) -> ReshardProgress | None:
    """None when no resharding of `ns` shows in $currentOp."""
    pipeline: list[dict[str, Any]] = [
        {"$currentOp": {"allUsers": True, "localOps": False}},
        {"$match": {"type": "op", "originatingCommand.reshardCollection": ns}},
    ]
    try:
        ops = list(conn.client.admin.aggregate(pipeline))
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: $currentOp failed: {redact(str(exc))}") from None
    if not ops:
        return None
    recipients = [o for o in ops if "recipientState" in o]
    coordinator = next((o for o in ops if "coordinatorState" in o), {})
    estimates = [
        int(o["remainingOperationTimeEstimatedSecs"])
        for o in recipients
        if isinstance(o.get("remainingOperationTimeEstimatedSecs"), int | float)
    ]
    return ReshardProgress(
        namespace=ns,
        state=str(coordinator.get("coordinatorState", "")),
        bytes_copied=sum(int(o.get("bytesCopied", 0)) for o in recipients),
        bytes_to_copy=sum(int(o.get("approxBytesToCopy", 0)) for o in recipients),
        elapsed_s=max((int(o.get("totalOperationTimeElapsedSecs", 0)) for o in ops), default=0),
        remaining_s=max(estimates) if estimates else None,
    )


class MongoReshard:
    """apply's ReshardControl: a running resharding's progress, and aborting it."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def read_progress(self, ns: str) -> ReshardProgress | None:
        return read_progress(self.conn, ns)

    def running(self, ns: str) -> bool:
        return any(r.namespace == ns for r in read_reshardings(self.conn))

    def abort(self, ns: str) -> None:
        """abortReshardCollection; returns once the abort has finished on the server."""
        try:
            self.conn.client.admin.command({"abortReshardCollection": ns})
        except OperationFailure as exc:
            name = (exc.details or {}).get("codeName", "")
            raise ClusterError(
                f"abortReshardCollection {ns} failed: {name or exc.code}: "
                f"{redact(str((exc.details or {}).get('errmsg', exc)))}",
                hint="`zonectl status` shows whether it is still running; "
                "`zonectl recover --abort-resharding` retries the abort",
            ) from None
        except PyMongoError as exc:
            raise ClusterError(f"abortReshardCollection {ns} failed: {redact(str(exc))}") from None


def read_reshard_impacts(conn: Connection, plan: Plan) -> dict[int, Impact]:
    """The bytes a resharding copies: the whole collection ($shardedDataDistribution, 6.0.3+;
    collStats `size` otherwise), every chunk rewritten. Op index -> Impact."""
    out: dict[int, Impact] = {}
    for i, op in enumerate(plan.ops):
        key = op.key_change()
        if key is None or not key.reshards:
            continue
        chunks = MongoChunks(conn.client, conn.version)
        per_shard = chunks.read_shard_bytes(key.ns)
        size = sum(per_shard.values()) if per_shard else _coll_size(conn, key.ns)
        if size is None:
            continue
        n = _chunk_count(conn, key.ns)
        out[i] = Impact(n, n, size)
    return out


def _coll_size(conn: Connection, ns: str) -> int | None:
    db, coll = ns.split(".", 1)
    try:
        return int(conn.client[db].command({"collStats": coll}).get("size", 0))
    except PyMongoError:
        return None


def _chunk_count(conn: Connection, ns: str) -> int:
    config = conn.client.config
    try:
        entry = config.collections.find_one({"_id": ns}, {"uuid": 1})
        query = {"uuid": entry["uuid"]} if entry and "uuid" in entry else {"ns": ns}
        return int(config.chunks.count_documents(query))
    except PyMongoError:
        return 0
