"""What an apply run is given and what it reports: its options, the prepared plan, the
events it emits, and its result (shared by run.py and namespace_migration.py)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Protocol

from zonectl.apply.migrate import MigrationProgress, MigrationResult
from zonectl.apply.move_lookup import Resets
from zonectl.plan.ops import Op
from zonectl.plan.plan import Plan


@dataclass(frozen=True)
class ApplyOptions:
    pause: str = "collection"  # "collection" (noBalance) | "cluster" (balancerStop)
    wait_timeout_s: float = 60.0
    migrate_budget_s: float | None = None  # --budget: no new move starts after this long
    parallel: int | None = None  # --parallel; None: default_parallel(number of shards)
    force_jumbo: bool = False
    lease_ttl: dt.timedelta = dt.timedelta(minutes=5)
    operation: str = "apply"
    detach: bool = False  # --detach: leave a resharding running on the server
    migrate: bool = False  # --migrate: a shard being removed is drained by zonectl's moves


@dataclass(frozen=True)
class Prepared:
    """The plan to run (already checked for staleness) and the namespaces to migrate."""

    plan: Plan
    migrate: tuple[str, ...] = ()


class Events(MigrationProgress, Protocol):
    def info(self, text: str) -> None: ...
    def op(self, op: Op, status: str) -> None: ...


@dataclass
class ApplyResult:
    apply_id: str = ""
    plan_id: str = ""
    ops_total: int = 0
    ops_done: int = 0
    recovered: list[str] = field(default_factory=list)
    migrations: list[MigrationResult] = field(default_factory=list)
    paused_s: dict[str, float] = field(default_factory=dict)  # per namespace (or "*")
    range_s: dict[str, float] = field(default_factory=dict)  # time of its range commands
    warnings: list[str] = field(default_factory=list)
    changed: bool = False
    resets: Resets = field(default_factory=Resets)  # connection resets during moves
