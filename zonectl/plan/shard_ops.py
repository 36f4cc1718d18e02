"""The ops that change the set of shards (reference shard-lifecycle.md): a shard added
(addShard), a shard drained and removed (removeShard before 8.3; startShardDraining and
commitShardRemoval from 8.3), a drain stopped (stopShardDraining, 8.3+), and a database's
primary moved off a shard being removed (movePrimary).

A removal is one op per shard in the plan, whatever step it is at (`step`): its command is
the next one the server needs. The apply runner carries a removal through its steps
(apply/drain.py); the op says what the shard still holds (`drain`) and what stands in the
way (`blockers`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from zonectl.model.shard_lifecycle import Blocker, ShardDrain
from zonectl.plan.op_base import Format, Op, format_bytes, format_range, plural

# start: the drain has not begun; continue: it has, and chunks or unsharded data remain;
# commit: the shard is empty, the removal can be committed.
RemovalStep = Literal["start", "continue", "commit"]


@dataclass(frozen=True)
class AddShard(Op, kind="add_shard", sign="+", counts_as="shard", phase="join", apply_only=True):
    """addShard: a replica set joins the cluster, before the zones it is given (the
    membership ops follow it in the join stage)."""

    shard: str
    host: str

    def describe(self) -> str:
        return f"add shard {self.shard} ({self.host})"

    def line(self) -> str:
        return f"add shard {self.shard} at {self.host}"

    # No callout: a shard joining destroys nothing (the PR view lists it with the changes).

    def command(self) -> dict[str, Any]:
        return {"addShard": self.host, "name": self.shard}


@dataclass(frozen=True)
class RemoveShard(
    Op,
    kind="remove_shard",
    sign="-",
    counts_as="shard",
    phase="shards",
    destructive=True,
    apply_only=True,
):
    """A shard drained and removed. `command_name` is the server's: removeShard (to 8.2,
    every step), startShardDraining / commitShardRemoval (8.3+)."""

    shard: str
    step: RemovalStep
    command_name: str
    drain: ShardDrain
    blockers: tuple[Blocker, ...] = ()

    @property
    def blocked(self) -> str:
        """The refusals the server would answer (zone in use, last shard); "" otherwise."""
        return "; ".join(b.message for b in self.blockers if b.refuses)

    def describe(self) -> str:
        verb = {"start": "drain and remove", "continue": "continue draining",
                "commit": "commit the removal of"}[self.step]  # fmt: skip
        return f"{verb} shard {self.shard}"

    def line(self) -> str:
        d = self.drain
        size = f", ~{format_bytes(d.bytes)}" if d.bytes else ""
        held = [f"{plural(d.chunks, 'chunk')}{size}"]
        if d.jumbo:
            held.append(plural(len(d.jumbo), "jumbo chunk"))
        if d.unsharded:
            held.append(plural(len(d.unsharded), "unsharded collection"))
        if d.databases:
            n = len(d.databases)
            held.append(f"{n} database {'primary' if n == 1 else 'primaries'}")
        if self.step == "commit":
            return f"remove shard {self.shard} (empty; {self.command_name})"
        what = "drain" if self.step == "start" else "continue draining"
        return f"{what} shard {self.shard}: {', '.join(held)} to move ({self.command_name})"

    def details(self) -> tuple[str, ...]:
        """Per collection its chunks and bytes, the jumbo chunks with their sizes, the
        unsharded data, pending orphans, then each blocker and its fix."""
        d = self.drain
        out = [
            f"{c.namespace}: {plural(c.chunks, 'chunk')}"
            + (f", {format_bytes(c.bytes)}" if c.bytes is not None else ", size unknown")
            for c in d.collections
        ]
        out += [
            f"jumbo chunk {j.namespace} {format_range(j.min, j.max)}: "
            + (format_bytes(j.bytes) if j.bytes is not None else "size unknown")
            for j in d.jumbo
        ]
        if d.unsharded:
            out.append(f"unsharded (moveCollection): {', '.join(d.unsharded)}")
        if d.databases:
            out.append(f"primary of (movePrimary): {', '.join(d.databases)}")
        if d.orphan_docs:
            out.append(
                f"orphans: {plural(d.orphan_docs, 'document')} ({format_bytes(d.orphan_bytes)}) "
                "waiting for range deletion"
            )
        if d.estimated_remaining_bytes is not None:
            out.append(
                f"estimatedRemainingBytes: {format_bytes(d.estimated_remaining_bytes)} "
                "(shardDrainingStatus)"
            )
        for b in self.blockers:
            out.append(f"{'BLOCKED' if b.refuses else 'blocker'} ({b.code}): {b.message}")
            out.append(f"  fix: {b.fix}")
        return tuple(out)

    def callout(self, code: Format, prose: Format) -> str:
        text = f"shard {code(self.shard)} is drained and removed from the cluster"
        for b in self.blockers:
            text += f" - **{prose(b.code)}**: {prose(b.message)}"
        return text

    def command(self) -> dict[str, Any]:
        return {self.command_name: self.shard}


@dataclass(frozen=True)
class StopShardDraining(
    Op, kind="stop_shard_draining", sign="~", counts_as="shard", phase="join", apply_only=True
):
    """stopShardDraining (8.3+): a draining shard set back to active becomes a recipient
    again. Before 8.3 no command cancels a drain; the planner says so instead."""

    shard: str

    def describe(self) -> str:
        return f"stop draining shard {self.shard}"

    def line(self) -> str:
        return f"stop draining shard {self.shard} (it stays in the cluster)"

    def command(self) -> dict[str, Any]:
        return {"stopShardDraining": self.shard}


@dataclass(frozen=True)
class MovePrimary(
    Op, kind="move_primary", counts_as="primary_moved", phase="relocate", apply_only=True
):
    """movePrimary: a database's primary shard moves off a shard being removed (before 8.0
    its unsharded collections move with it)."""

    db: str
    to_shard: str
    from_shard: str = ""

    def describe(self) -> str:
        return f"move the primary of database {self.db} from {self.from_shard} to {self.to_shard}"

    def line(self) -> str:
        return f"movePrimary {self.db} from {self.from_shard} to {self.to_shard}"

    def command(self) -> dict[str, Any]:
        return {"movePrimary": self.db, "to": self.to_shard}

    def inverse(self) -> Op | None:
        return MovePrimary(self.db, self.from_shard, self.to_shard) if self.from_shard else None
