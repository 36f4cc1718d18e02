"""What apply needs from the cluster, as structural interfaces: `zonectl.mongo` implements
them with pymongo, the CLI wires them together, and apply itself never opens a client."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from zonectl.model.cluster import ClusterState, LiveMove, LiveRange, ReshardProgress
from zonectl.model.shard_lifecycle import ShardDrain
from zonectl.plan.ops import Op

Doc = Mapping[str, Any]


class LeaseStore(Protocol):
    def acquire(
        self, fields: Doc, *, now: dt.datetime, may_take: Callable[[Doc], bool]
    ) -> dict[str, Any]: ...
    def renew(self, token: str, expires: dt.datetime) -> bool: ...
    def update(self, token: str, fields: Doc) -> None: ...
    def release(self, token: str) -> None: ...
    def read(self) -> dict[str, Any] | None: ...


class JournalStore(Protocol):
    def open(self, doc: Doc) -> None: ...
    def event(self, apply_id: str, doc: Doc) -> None: ...
    def close(self, apply_id: str, outcome: str) -> None: ...
    def find_open(self) -> list[dict[str, Any]]: ...


class BalancingControl(Protocol):
    def read_no_balance(self, ns: str) -> bool | None: ...
    def set_no_balance(self, ns: str, value: bool) -> None: ...
    def balancer_running(self) -> bool: ...
    def auto_merger(self) -> bool: ...
    def set_balancer(self, running: bool, auto_merger: bool | None = None) -> None: ...
    def wait_idle(
        self, ns: str | None, timeout_s: float, stopped: Callable[[], bool] = ...
    ) -> bool: ...


class ChunkReader(Protocol):
    def read_ranges(self, ns: str) -> list[LiveRange]: ...
    def read_chunks(self, ns: str) -> list[dict[str, Any]]: ...
    def max_chunk_bytes(self, ns: str) -> int: ...
    def read_shard_bytes(self, ns: str) -> dict[str, int] | None: ...
    def read_range_bytes(
        self, ns: str, ranges: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]
    ) -> list[int] | None: ...


class UnshardedReader(Protocol):
    """Where an unsharded collection lives, and the moveCollection running on it (8.0+)."""

    def read_home_shard(self, ns: str) -> str | None: ...
    def read_move(self, ns: str) -> LiveMove | None: ...


class ReshardControl(Protocol):
    """A resharding running on the server: its progress ($currentOp) and its abort."""

    def read_progress(self, ns: str) -> ReshardProgress | None: ...
    def running(self, ns: str) -> bool: ...
    def abort(self, ns: str) -> None: ...


class MoveWatch(Protocol):
    """After a move's connection reset: its migration in flight, and the chunk's owner."""

    def read_running(self, ns: str, lo: Mapping[str, Any], to: str) -> bool | None: ...
    def read_owner(self, ns: str, lo: Mapping[str, Any]) -> str | None: ...


class DrainReader(Protocol):
    """What a shard being removed still holds, read afresh (progress, and the chunks
    `apply --migrate` moves off it)."""

    def read_drain(self, shard: str) -> ShardDrain: ...


class AuditStore(Protocol):
    def write(self, doc: Doc) -> None: ...


class MemoStore(Protocol):
    """zonectl's own record of what an op started (Op.memo: a one-shot setting)."""

    def write(self, memo: Doc) -> None: ...


@dataclass(frozen=True)
class Ports:
    """Everything apply does to a cluster goes through one of these."""

    send: Callable[[Op], Doc]  # the executor bound to a client
    read_state: Callable[[Collection[str]], ClusterState]
    lease: LeaseStore
    journal: JournalStore
    balancing: BalancingControl
    chunks: ChunkReader
    audit: AuditStore
    version: str = ""
    unsharded: UnshardedReader | None = None  # needed only by MoveCollection ops
    reshard: ReshardControl | None = None  # needed only by ReshardCollection ops
    memos: MemoStore | None = None  # needed only by ops with a memo (one-shot settings)
    moves: MoveWatch | None = None  # a move's lookup after a reset (apply/move_lookup.py)
    drains: DrainReader | None = None  # needed only by RemoveShard ops (apply/drain.py)
    # Seconds on the cluster's clock, for --budget and the progress bar: time.monotonic,
    # or an in-process sandbox's (virtual) clock so both run in simulated time.
    clock: Callable[[], float] = time.monotonic
    # Seconds the cluster has been unreachable (every mongos failing its heartbeats), 0
    # while it answers: how long a run keeps trying (apply/reach.py).
    down_s: Callable[[], float] = lambda: 0.0

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0]) if self.version[:1].isdigit() else 7
