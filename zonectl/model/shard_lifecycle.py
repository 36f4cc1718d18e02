"""Shards joining and leaving (reference shard-lifecycle.md): what the policy asks of a
shard beyond its zones, and what a shard still holds that must leave before it can go.

`ShardSpec` is built by `zonectl.policy` from a `shards:` entry's long form; `ShardDrain`
is read by `zonectl.mongo` for every shard the policy removes or the cluster is draining,
and read by the planner (its op and blockers), the forecast, status, metrics and analyze.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from zonectl.diagnostics import Position

ShardState = Literal["active", "removed"]


@dataclass(frozen=True)
class ShardSpec:
    """A `shards:` entry's lifecycle: `removed` drains the shard and removes it from the
    cluster; `host` ("rs/host:port,...") adds it when the cluster lacks it."""

    state: ShardState = "active"
    host: str | None = None
    position: Position | None = dataclasses.field(default=None, compare=False)


@dataclass(frozen=True)
class JumboChunk:
    """A chunk flagged `jumbo` on a shard being drained: the balancer skips it."""

    namespace: str
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    bytes: int | None = None  # dataSize of the range, when the server answered


@dataclass(frozen=True)
class DrainCollection:
    """One sharded collection's share of a shard being drained."""

    namespace: str
    chunks: int
    bytes: int | None  # owned bytes on the shard ($shardedDataDistribution), None: unknown
    jumbo: tuple[JumboChunk, ...] = ()


@dataclass(frozen=True)
class ShardDrain:
    """What one shard still holds that must leave before it can be removed, read live."""

    shard: str
    draining: bool  # config.shards `draining: true` (a drain has started)
    collections: tuple[DrainCollection, ...] = ()
    unsharded: tuple[str, ...] = ()  # unsharded collections on it (moveCollection, 8.0+)
    databases: tuple[str, ...] = ()  # databases whose primary it is (movePrimary)
    orphan_docs: int = 0  # range deletions still pending on it (numOrphanedDocs)
    orphan_bytes: int = 0
    # 8.3+ shardDrainingStatus `remaining.estimatedRemainingBytes`; None: not reported.
    estimated_remaining_bytes: int | None = None

    @property
    def chunks(self) -> int:
        return sum(c.chunks for c in self.collections)

    @property
    def bytes(self) -> int | None:
        """Bytes of its sharded data to move; None when some collection's are unknown."""
        sizes = [c.bytes for c in self.collections]
        return None if any(b is None for b in sizes) else sum(b or 0 for b in sizes)

    @property
    def jumbo(self) -> tuple[JumboChunk, ...]:
        return tuple(j for c in self.collections for j in c.jumbo)

    @property
    def empty(self) -> bool:
        """Nothing left to move: removal can be committed once the orphans are deleted."""
        return not (self.chunks or self.unsharded or self.databases)


BlockerCode = Literal[
    "zone-in-use",
    "balancer-off",
    "outside-window",
    "jumbo",
    "last-shard",
    "no-recipient",
    "cannot-stop",
]


@dataclass(frozen=True)
class Blocker:
    """Why a removal (or its drain) cannot finish as things stand, and the way out."""

    code: BlockerCode
    message: str
    fix: str
    # True when the server would refuse the command itself (zone-in-use, last-shard):
    # apply refuses the plan. False when only the drain's progress stops.
    refuses: bool = False
