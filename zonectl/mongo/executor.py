"""The executor, apply's `send` port: one function per op class, each sending exactly
`op.command()` to `op.database`; a server error becomes an OpFailedError naming the op, its
namespace and MongoDB's code, codeName and message."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pymongo import MongoClient
from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.plan.failures import OpFailedError, OutcomeUnknownError
from zonectl.plan.moves import MoveChunk
from zonectl.plan.ops import (
    AddShardToZone,
    AssignZoneRange,
    MoveCollection,
    MoveRange,
    Op,
    RefineShardKey,
    RemoveShardFromZone,
    RemoveZoneRange,
    ReshardCollection,
    SetBalancerEnabled,
    SetBalancerWindow,
    SetCollectionBalancing,
    SetQueryAnalyzer,
    SplitChunk,
)

Client = MongoClient[dict[str, Any]]
Reply = Mapping[str, Any]


def _send(client: Client, op: Op) -> Reply:
    command = op.command()
    try:
        return client[op.database].command(command)
    except OperationFailure as exc:
        details = exc.details or {}
        raise OpFailedError(
            op, exc.code, str(details.get("codeName", "")), str(details.get("errmsg", exc))
        ) from None
    except PyMongoError as exc:
        raise OutcomeUnknownError(
            f"{op.describe()}: the connection failed, the outcome is unknown: {redact(str(exc))}",
            hint="rerun `zonectl apply`: it re-reads the cluster and plans what is left",
        ) from None


def _write(client: Client, op: Op, must_match: bool) -> Reply:
    """An `update` command answers ok with writeErrors inside; those are failures too."""
    reply = _send(client, op)
    errors = reply.get("writeErrors") or []
    if errors:
        first = errors[0]
        raise OpFailedError(
            op, first.get("code"), str(first.get("codeName", "")), str(first.get("errmsg"))
        )
    wce = reply.get("writeConcernError")
    if wce:
        raise OpFailedError(
            op, wce.get("code"), str(wce.get("codeName", "")), str(wce.get("errmsg"))
        )
    if must_match and not reply.get("n"):
        raise OpFailedError(
            op, None, "NamespaceNotFound", f"no config.collections entry {op.namespace}"
        )
    return reply


def add_shard_to_zone(client: Client, op: AddShardToZone) -> Reply:
    return _send(client, op)


def remove_shard_from_zone(client: Client, op: RemoveShardFromZone) -> Reply:
    return _send(client, op)


def assign_zone_range(client: Client, op: AssignZoneRange) -> Reply:
    return _send(client, op)


def remove_zone_range(client: Client, op: RemoveZoneRange) -> Reply:
    # ok even when nothing matched (reference §1.6): apply verifies in config.tags after.
    return _send(client, op)


def set_collection_balancing(client: Client, op: SetCollectionBalancing) -> Reply:
    return _write(client, op, must_match=True)


def set_query_analyzer(client: Client, op: SetQueryAnalyzer) -> Reply:
    return _send(client, op)


def set_balancer_enabled(client: Client, op: SetBalancerEnabled) -> Reply:
    return _send(client, op)


def set_balancer_window(client: Client, op: SetBalancerWindow) -> Reply:
    return _write(client, op, must_match=False)


def split_chunk(client: Client, op: SplitChunk) -> Reply:
    return _send(client, op)


def move_range(client: Client, op: MoveRange) -> Reply:
    return _send(client, op)


def move_chunk(client: Client, op: MoveChunk) -> Reply:
    return _send(client, op)


def move_collection(client: Client, op: MoveCollection) -> Reply:
    # Returns when the move is done (at least 5 minutes; zonectl sets no socket timeout). A
    # lost connection leaves the move running on the server: the next apply sees it in
    # config.reshardingOperations and waits for it (apply/collection_moves.py).
    return _send(client, op)


def refine_shard_key(client: Client, op: RefineShardKey) -> Reply:
    return _send(client, op)


def reshard_collection(client: Client, op: ReshardCollection) -> Reply:
    # Returns when the resharding commits (hours for a big collection; no socket timeout).
    # apply/reshard/ runs it on a thread and watches it through $currentOp meanwhile.
    return _send(client, op)


HANDLERS: dict[type[Op], Callable[[Client, Any], Reply]] = {
    AddShardToZone: add_shard_to_zone,
    RemoveShardFromZone: remove_shard_from_zone,
    AssignZoneRange: assign_zone_range,
    RemoveZoneRange: remove_zone_range,
    SetCollectionBalancing: set_collection_balancing,
    SetQueryAnalyzer: set_query_analyzer,
    SetBalancerEnabled: set_balancer_enabled,
    SetBalancerWindow: set_balancer_window,
    SplitChunk: split_chunk,
    MoveRange: move_range,
    MoveChunk: move_chunk,
    MoveCollection: move_collection,
    RefineShardKey: refine_shard_key,
    ReshardCollection: reshard_collection,
}


def execute(client: Client, op: Op) -> Reply:
    handler = HANDLERS.get(type(op))
    if handler is None:
        raise ClusterError(f"zonectl cannot execute op kind {op.kind!r}")
    return handler(client, op)


def bind(client: Client) -> Callable[[Op], Reply]:
    """The executor as apply's `send` port."""
    return lambda op: execute(client, op)
