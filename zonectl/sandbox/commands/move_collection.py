"""moveCollection (8.0+): move one unsharded collection to a named shard, taking simulated time.

Behaviour from MongoDB (mongo:jstests/sharding/move_collection_basic.js unless noted):
- absent before 8.0: CommandNotFound (registry `exists_in`; the manual: "New in version 8.0");
- an 8.0 cluster at FCV 7.0: InvalidOptions, the coordinator's check of the shardDistribution
  it is sent (commands/fcv_gates.py);
- `toShard` missing: IDLFailedToParse; a namespace that does not exist and a sharded
  collection: NamespaceNotFound;
- a time-series collection: IllegalOperation while featureFlagReshardingForTimeseries is off,
  as in 8.0 (mongo:jstests/sharding/resharding_timeseries/
  move_collection_timeseries_fails_without_feature_flag.js); a capped collection moves
  (mongo:jstests/sharding/move_collection_capped_collection.js);
- afterwards config.collections has `unsplittable: true` and config.chunks one chunk on the
  target; the command returns when the move is done, at least 5 minutes later (manual,
  moveCollection: "moveCollection has a 5 minute minimum duration"; the coordinator hands
  the recipients `reshardingMinimumOperationDurationMillis`, default 300000, and cloning
  lasts at least that long: mongo:src/mongo/db/s/resharding/resharding_coordinator.cpp).
- While it runs it is a resharding operation with provenance "moveCollection": the config
  server's coordinator document in config.reshardingOperations (fields as
  `ReshardingCoordinatorDocument`, inferred), which a client can read through the mongos.
Guesses (no source found): a view answers NamespaceNotFound (it is no collection to
reshard); an unknown `toShard` answers ShardNotFound; a second move of the same collection to
the same shard joins the first; any other move while one runs answers
ReshardCollectionInProgress ("can only move a single collection at a time", manual).
"""

from __future__ import annotations

import datetime as dt
import itertools
import uuid
from typing import TYPE_CHECKING, Any

from bson import Binary

from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.catalog import unsharded
from zonectl.sandbox.commands.fcv_gates import reject_without_improvements
from zonectl.sandbox.commands.move_rules import typed_namespace
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.cluster import Cluster

RESHARD_IN_PROGRESS = 338  # ErrorCodes::ReshardCollectionInProgress
CURRENT_OP = "$currentOp"
_DUE: dict[Any, dt.datetime] = {}  # resharding uuid -> when its copy ends (for $currentOp)


@command(
    "moveCollection",
    admin_only=True,
    exists_in=lambda version: version.version_array[0] >= 8,
)
def move_collection(request: Request) -> dict[str, Any]:
    ns = typed_namespace(request)
    to = request.body.get("toShard")
    if to is None:
        message = "BSON field 'moveCollection.toShard' is missing but a required field"
        raise CommandError.of("IDLFailedToParse", message)
    if not isinstance(to, str):
        raise CommandError.of(
            "TypeMismatch",
            f"BSON field 'moveCollection.toShard' is the wrong type '{type_name(to)}', "
            "expected type 'string'",
        )
    sandbox = request.sandbox
    cluster = sandbox.cluster
    kind = unsharded.kind_of(cluster, ns)
    sharded = cluster.is_sharded(ns)  # an unsplittable (moved) one is not
    if kind is None or sharded or kind == "view":
        raise CommandError.of("NamespaceNotFound", f"Collection {ns} not found")
    reject_without_improvements(request, "shardDistribution")  # 8.0 at FCV 7.0
    if kind == "timeseries":
        raise CommandError.of(
            "IllegalOperation", "Can't move a timeseries collection: resharding is not supported"
        )
    if cluster.shard_doc(to) is None:
        raise CommandError.of("ShardNotFound", f"Shard {to} not found")
    operations = cluster.coll(unsharded.RESHARDING_OPERATIONS)
    for doc in operations:
        same = doc.get("ns") == ns and doc["recipientShards"][0]["id"] == to
        if not same:
            raise CommandError(
                RESHARD_IN_PROGRESS,
                f"A resharding operation is already in progress for {doc.get('ns')}",
                "ReshardCollectionInProgress",
            )
        _wait_until_gone(request, doc["_id"])
        return {}
    donor = unsharded.home_shard(cluster, ns) or to
    size, _count = unsharded.size_of(cluster, ns)
    now = cluster.now()
    op_id = Binary.from_uuid(uuid.uuid4())
    doc = {
        "_id": op_id,
        "ns": ns,
        "tempNs": f"{ns.split('.', 1)[0]}.system.resharding.{uuid.UUID(bytes=op_id)}",
        "reshardingKey": {"_id": 1},
        "state": "cloning",
        "provenance": "moveCollection",
        "donorShards": [{"id": donor}],
        "recipientShards": [{"id": to}],
        "startTime": now,
        "approxBytesToCopy": size,
    }
    operations.put(doc)
    due = now + sandbox.balancer.costs.move_collection(donor, to, size, _count)
    _DUE[op_id] = due
    _log_transitions(cluster, ns, doc, ("unused", "initializing", "preparing-to-donate", "cloning"))
    # The coordinator keeps going when the client goes away: wait without a deadline. `due`
    # is an alarm, as a chunk migration's commit is: a virtual clock nobody steps jumps
    # there once the sandbox is quiet (else apply/rotate of an 8.0 pin would hang); a test
    # that watches the move running holds the clock (`with clock.held():`).
    sandbox.balancer.block_until(due)
    with sandbox.lock:
        if operations.get(op_id) is not None:
            unsharded.track_moved(cluster, ns, to)
            operations.remove(op_id)
            _DUE.pop(op_id, None)
            _log_transitions(
                cluster, ns, doc, ("cloning", "applying", "blocking-writes", "committing", "done")
            )
    return {}


def _log_transitions(
    cluster: Cluster, ns: str, doc: dict[str, Any], states: tuple[str, ...]
) -> None:
    """The coordinator's `resharding.coordinator.transition` changelog entries, one per
    state change (`ReshardingCoordinator::_updateCoordinatorDocStateAndCatalogEntries`,
    mongo:src/mongo/db/s/resharding/resharding_coordinator.cpp: newState, oldState,
    namespace, collectionUUID, reshardingUUID); all at the instant of the call here."""
    coll_uuid = (cluster.collection_doc(ns) or {}).get("uuid")
    resharding_uuid = str(uuid.UUID(bytes=doc["_id"]))
    for old, new in itertools.pairwise(states):
        cluster.log_change(
            "resharding.coordinator.transition",
            ns,
            {
                "newState": new,
                "oldState": old,
                "namespace": ns,
                "collectionUUID": str(coll_uuid.as_uuid()) if coll_uuid is not None else "",
                "reshardingUUID": resharding_uuid,
            },
            shard="config",
        )


def _wait_until_gone(request: Request, op_id: Any) -> None:
    operations = request.sandbox.cluster.coll(unsharded.RESHARDING_OPERATIONS)
    request.sandbox.balancer.wait_for(lambda: operations.get(op_id) is None, None)


def current_ops(request: Request) -> list[dict[str, Any]]:
    """`$currentOp` documents of the moves in flight, as the manual's "Monitor the
    moveCollection" step reads them (`type: "op"`, `originatingCommand.reshardCollection`,
    `totalOperationTimeElapsedSecs`, `remainingOperationTimeEstimatedSecs`); one per move,
    from its recipient shard (the rest of a real $currentOp output is not simulated)."""
    cluster = request.sandbox.cluster
    now = cluster.now()
    out = []
    for doc in cluster.coll(unsharded.RESHARDING_OPERATIONS):
        if doc.get("provenance") != "moveCollection":
            continue  # a reshardCollection: commands/reshard_current_op.py
        due = _DUE.get(doc["_id"])
        elapsed = int((now - doc["startTime"]).total_seconds()) if doc.get("startTime") else 0
        remaining = int((due - now).total_seconds()) if due is not None else -1
        out.append(
            {
                "shard": doc["recipientShards"][0]["id"],
                "type": "op",
                "desc": "ReshardingMetricsRecipientService",
                "op": "command",
                "ns": doc["ns"],
                "originatingCommand": {
                    "reshardCollection": doc["ns"],
                    "key": dict(doc.get("reshardingKey", {})),
                    "unique": False,
                    "collation": {"locale": "simple"},
                },
                "provenance": doc.get("provenance"),
                "totalOperationTimeElapsedSecs": max(elapsed, 0),
                "remainingOperationTimeEstimatedSecs": max(remaining, 0),
                "recipientState": doc.get("state"),
            }
        )
    return out
