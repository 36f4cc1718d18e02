"""What a removal command answered (reference shard-lifecycle.md §1-2), and the words apply
says about a drain: its progress, what stops it, the way out of a jumbo chunk. Pure.

removeShard (to 8.2) answers `state` started | ongoing | pendingDataCleanup | completed,
an ongoing reply with `remaining: {chunks, dbs, jumboChunks}`, `dbsToMove` and, 8.0+,
`collectionsToMove`; shardDrainingStatus (8.3+) answers ongoing | drainingComplete with
`remaining.estimatedRemainingBytes` besides."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zonectl.errors import PlanError
from zonectl.model.shard_lifecycle import Blocker, ShardDrain
from zonectl.plan.op_base import format_bytes, format_range, plural
from zonectl.plan.plan import Plan
from zonectl.plan.shard_ops import RemovalStep, RemoveShard

REMOVE = "removeShard"
STATUS = "shardDrainingStatus"
COMMIT = "commitShardRemoval"
# Nothing left to move: the removal can be committed (removeShard's pendingDataCleanup
# waits for range deletions, then answers completed).
DRAINED = frozenset({"drainingComplete", "pendingDataCleanup", "completed"})


@dataclass(frozen=True)
class Remaining:
    """One reply of removeShard or shardDrainingStatus."""

    state: str
    chunks: int | None = None
    jumbo: int = 0
    dbs: tuple[str, ...] = ()
    collections: tuple[str, ...] = ()
    bytes: int | None = None  # 8.3's estimatedRemainingBytes, or read ($shardedDataDistribution)

    @property
    def drained(self) -> bool:
        return self.state in DRAINED

    def text(self) -> str:
        """`12 chunks (~1.5 MiB), 1 jumbo chunk, primary of app, 2 unsharded collections`."""
        if self.drained:
            return "nothing left to move"
        parts = []
        if self.chunks is not None:
            size = f" (~{format_bytes(self.bytes)})" if self.bytes else ""
            parts.append(plural(self.chunks, "chunk") + size)
        if self.jumbo:
            parts.append(plural(self.jumbo, "jumbo chunk"))
        if self.dbs:
            parts.append(f"primary of {', '.join(self.dbs)}")
        if self.collections:
            parts.append(plural(len(self.collections), "unsharded collection"))
        return ", ".join(parts) or "data left to move"


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _names(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list | tuple) else ()


def parse(reply: Mapping[str, Any]) -> Remaining:
    """A removeShard / shardDrainingStatus reply; commitShardRemoval's empty reply (ok)
    reads as completed."""
    remaining = reply.get("remaining") or {}
    return Remaining(
        state=str(reply.get("state") or "completed"),
        chunks=_int(remaining.get("chunks")),
        jumbo=_int(remaining.get("jumboChunks")) or 0,
        dbs=_names(reply.get("dbsToMove")),
        collections=_names(reply.get("collectionsToMove")),
        bytes=_int(remaining.get("estimatedRemainingBytes")),
    )


def with_bytes(rem: Remaining, drain: ShardDrain | None) -> Remaining:
    """The reply's figures, with the bytes read when the server did not say them."""
    if rem.bytes is not None or drain is None:
        return rem
    return dataclasses.replace(rem, bytes=drain.bytes)


NEWER: Mapping[RemovalStep, str] = {
    "start": "startShardDraining",
    "continue": STATUS,
    "commit": COMMIT,
}


def at_step(op: RemoveShard, step: RemovalStep) -> RemoveShard:
    """The same removal at another step, with that step's command on the op's server."""
    name = NEWER[step] if op.command_name != REMOVE else REMOVE
    return dataclasses.replace(op, step=step, command_name=name)


def stalled(op: RemoveShard) -> list[Blocker]:
    """The plan's blockers that stop the drain's progress (not the refusals)."""
    return [b for b in op.blockers if not b.refuses]


def next_step_line(shard: str, rem: Remaining) -> str:
    return (
        f"shard {shard} is draining: {rem.text()} left; the balancer drains it; run "
        "`zonectl apply` again (e.g. from cron) to commit the removal once it is empty"
    )


def blockers_warning(shard: str, blockers: Sequence[Blocker]) -> str:
    listed = "; ".join(f"{b.message} (fix: {b.fix})" for b in blockers)
    return f"the drain of shard {shard} will not progress as things stand: {listed}"


def jumbo_message(
    shard: str,
    chunks: Sequence[str],
    *,
    stopped: str = "stopped",
    after: str = "balancing was restored",
) -> tuple[str, str]:
    """The error and its hint when jumbo chunks stop a `--migrate` drain (or would)."""
    shown = "; ".join(chunks[:10]) + (f"; and {len(chunks) - 10} more" if len(chunks) > 10 else "")
    return (
        f"the drain of shard {shard} {stopped}: {plural(len(chunks), 'jumbo chunk')} cannot move "
        f"without --force-jumbo: {shown}",
        "rerun with `--migrate --force-jumbo`, split the chunk (sh.splitAt) so its halves can "
        "move, or reshard the collection (reshardCollection, the manual's route for a shard "
        f"holding jumbo chunks); {after}",
    )


def refuse_jumbo_drains(plan: Plan, *, migrate: bool, force_jumbo: bool) -> None:
    """Before anything is written: `--migrate` without `--force-jumbo` would stop at a jumbo
    chunk of a shard it drains, after the plan's other ops had run; refuse it whole."""
    if not migrate or force_jumbo:
        return
    for op in plan.ops:
        if isinstance(op, RemoveShard) and op.step != "commit" and op.drain.jumbo:
            chunks = [f"{j.namespace} {format_range(j.min, j.max)}" for j in op.drain.jumbo]
            message, hint = jumbo_message(
                op.shard, chunks, stopped="would stop", after="nothing was changed"
            )
            raise PlanError(message, hint=hint)


def refuse_blocked_removals(plan: Plan) -> None:
    """Before anything is written: a removal the server would refuse (the only shard of a
    zone with ranges, the last shard) stops the whole plan, named with its fix."""
    refused = [
        (op.shard, b) for op in plan.ops if isinstance(op, RemoveShard) for b in op.blockers
        if b.refuses
    ]  # fmt: skip
    if refused:
        raise PlanError(
            "the plan removes a shard the server would refuse to remove; nothing was changed:",
            details=[f"shard {shard}: {b.message}; fix: {b.fix}" for shard, b in refused],
            hint="change the policy as each line says, then `zonectl plan` again",
        )


def held_text(drain: ShardDrain) -> str:
    """`12 chunks (~1.5 MiB), 1 jumbo chunk, primary of app, 2 unsharded collections`."""
    rem = Remaining(
        "ongoing", drain.chunks, len(drain.jumbo), drain.databases, drain.unsharded, drain.bytes
    )
    return rem.text() if not drain.empty else "nothing (it can be committed)"


def left_draining(drain: ShardDrain, apply_id: str | None) -> str:
    """What `zonectl recover` says about a shard left draining: it does not undo a drain."""
    by = f" (started by apply {apply_id})" if apply_id else ""
    return (
        f"shard {drain.shard} is draining{by}: it still holds {held_text(drain)}; recover does "
        "not undo a drain: `zonectl apply` resumes it and commits the removal once it is empty"
        " (`--migrate` moves its chunks now)"
    )


def drains_started(headers: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """shard -> the interrupted apply (an open journal) that sent its removal."""
    out: dict[str, str] = {}
    for header in headers:
        for event in header.get("events", []):
            if event.get("kind") == RemoveShard.kind and event.get("type") == "step":
                shard = str(event.get("op", "")).rsplit(" shard ", 1)[-1]
                out.setdefault(shard, str(header.get("_id")))
    return out
