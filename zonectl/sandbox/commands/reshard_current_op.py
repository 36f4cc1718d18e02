"""`$currentOp` documents of a resharding in flight: one per recipient, donor and the
coordinator, with the fields the manual's "Monitor the resharding operation" reads
(docs: reference/command/reshardCollection, core/sharding-reshard-a-collection):
`type: "op"`, `desc` ("ReshardingRecipientService <uuid>", ...), `originatingCommand`
(reshardCollection, key, unique, collation), `totalOperationTimeElapsedSecs`,
`remainingOperationTimeEstimatedSecs`, `approxBytesToCopy`/`bytesCopied`,
`approxDocumentsToCopy`/`documentsCopied`, `totalCopyTimeElapsedSecs`, and each role's state
(`recipientState`, `donorState`, `coordinatorState`). The states are CoordinatorStateEnum,
RecipientStateEnum and DonorStateEnum (mongo:src/mongo/s/resharding/common_types.idl).

The remaining-time estimate is the recipients' own (ReshardingMetrics): during cloning the
rate so far applied to what is left plus the oplog catch-up; it knows nothing of the
minimum duration, so it can read 0 while the coordinator still waits.
"""

from __future__ import annotations

import uuid
from typing import Any

from zonectl.sandbox.balancer import resharding
from zonectl.sandbox.commands.registry import Request

_RECIPIENT = {
    "cloning": "cloning",
    "applying": "applying",
    "blocking-writes": "strict-consistency",
    "committing": "strict-consistency",
}
_DONOR = {
    "cloning": "donating-initial-data",
    "applying": "donating-oplog-entries",
    "blocking-writes": "blocking-writes",
    "committing": "blocking-writes",
}


def current_ops(request: Request) -> list[dict[str, Any]]:
    cluster = request.sandbox.cluster
    now = cluster.now()
    out: list[dict[str, Any]] = []
    for op in resharding.running(cluster):
        resharding.refresh(cluster, op)
        if op.outcome is not None:
            continue
        p = op.phases
        state = op.state_at(now)
        share = op.copied_share(now)
        elapsed = max(0, int((now - p.start).total_seconds()))
        remaining = max(0, int((p.apply_end - now).total_seconds()))
        copy_elapsed = int((min(now, p.clone_end) - p.start).total_seconds())
        tag = str(uuid.UUID(bytes=bytes(op.id)))
        base = {
            "type": "op",
            "op": "command",
            "ns": op.ns,
            "originatingCommand": {
                "reshardCollection": op.ns,
                "key": dict(op.key),
                "unique": False,
                "collation": {"locale": "simple"},
            },
            "provenance": "reshardCollection",
            "totalOperationTimeElapsedSecs": elapsed,
        }
        for shard, nbytes in sorted(op.layout.received.items()):
            docs = _docs_for(op, shard)
            out.append(
                {
                    **base,
                    "shard": shard,
                    "desc": f"ReshardingRecipientService {tag}",
                    "remainingOperationTimeEstimatedSecs": remaining,
                    "approxDocumentsToCopy": docs,
                    "documentsCopied": int(docs * share),
                    "approxBytesToCopy": nbytes,
                    "bytesCopied": int(nbytes * share),
                    "totalCopyTimeElapsedSecs": max(copy_elapsed, 0),
                    "oplogEntriesFetched": 0,
                    "oplogEntriesApplied": 0,
                    "recipientState": _RECIPIENT.get(state, state),
                }
            )
        for shard in sorted(op.layout.sent):
            out.append(
                {
                    **base,
                    "shard": shard,
                    "desc": f"ReshardingDonorService {tag}",
                    "donorState": _DONOR.get(state, state),
                    "totalCriticalSectionTimeElapsedSecs": _critical_elapsed(op, now),
                    "countWritesDuringCriticalSection": 0,
                }
            )
        out.append(
            {
                **base,
                "shard": "config",
                "desc": f"ReshardingCoordinatorService {tag}",
                "coordinatorState": state,
                "remainingOperationTimeEstimatedSecs": remaining,
            }
        )
    return out


def _docs_for(op: resharding.Resharding, shard: str) -> int:
    return sum(c for s, c in zip(op.layout.shards, op.layout.counts, strict=True) if s == shard)


def _critical_elapsed(op: resharding.Resharding, now: Any) -> int:
    if now < op.phases.critical_start:
        return 0
    return int((now - op.phases.critical_start).total_seconds())
