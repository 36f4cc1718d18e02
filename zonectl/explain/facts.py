"""What the rules read: per shard its zones and draining flag, per collection its chunks
counted by (shard, zone) with their jumbo flags, its bytes per shard, its switches and
what its history says; per cluster the balancer's mode and window. Plain values, built by
zonectl/mongo/explain_read.py and zonectl/session/explain.py."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

NO_ZONE = ""  # ZoneInfo::kNoZoneName: a chunk no zone range wholly contains


@dataclass(frozen=True)
class ShardFacts:
    id: str
    zones: frozenset[str] = frozenset()
    draining: bool = False


@dataclass(frozen=True)
class Tally:
    """Chunks of one collection on one shard in one zone (NO_ZONE included)."""

    chunks: int = 0
    jumbo: int = 0  # of them, flagged `jumbo: true` in config.chunks

    @property
    def movable(self) -> int:
        return self.chunks - self.jumbo


@dataclass(frozen=True)
class Failures:
    """The collection's newest moveChunk attempts in config.changelog: how many failed in a
    row since its last commit, when the newest did, and the server's last message."""

    in_a_row: int
    last: dt.datetime | None = None
    message: str = ""


@dataclass(frozen=True)
class CollectionFacts:
    ns: str
    tally: Mapping[tuple[str, str], Tally]  # (shard, zone) -> chunks there
    range_zones: frozenset[str] = frozenset()  # zones with ranges in this collection
    straddling: int = 0  # chunks a zone boundary cuts (the balancer splits them first)
    sizes: Mapping[str, int] | None = None  # owned bytes per shard; None: not known
    max_chunk_bytes: int = 128 * 1024 * 1024
    no_balance: bool = False  # noBalance (sh.disableBalancing, enableBalancing: false)
    allow_migrations: bool = True  # allowMigrations (DDL) and permitMigrations (setAllowMigrations)
    migrations_field: str = ""  # which of the two is false
    defragmenting: bool = False
    defrag_phase: str = ""
    ddl: str = ""  # what DDL holds it ("resharding (state cloning)", "being dropped")
    failures: Failures | None = None  # None: the history was not read (see `unknown`)
    orphans: Mapping[str, int] = field(default_factory=dict)  # shard -> orphaned documents
    # Facts that could not be read, by reason code: code -> what was refused and the fix.
    unknown: Mapping[str, str] = field(default_factory=dict)

    def chunks_on(self, shard: str) -> int:
        return sum(t.chunks for (s, _), t in self.tally.items() if s == shard)

    def in_zone(self, shard: str, zone: str) -> Tally:
        return self.tally.get((shard, zone), Tally())

    def zones_on(self, shard: str) -> list[str]:
        """The zones of the chunks on `shard`, NO_ZONE last (sorted otherwise)."""
        return list(self._zones_by_shard.get(shard, ()))

    @functools.cached_property
    def _zones_by_shard(self) -> dict[str, list[str]]:
        """`zones_on` of every shard, found in one pass over the tally (the rules ask it of
        each shard several times)."""
        found: dict[str, set[str]] = {}
        for (s, z), t in self.tally.items():
            if t.chunks:
                found.setdefault(s, set()).add(z)
        return {
            s: [*sorted(zs - {NO_ZONE}), *([NO_ZONE] if NO_ZONE in zs else [])]
            for s, zs in found.items()
        }

    def total_chunks(self) -> int:
        return sum(t.chunks for t in self.tally.values())


@dataclass(frozen=True)
class BalancerFacts:
    enabled: bool = True  # mode full and not stopped
    mode: str = "full"
    window_open: bool = True
    window: str = ""  # "window 02:00-06:00 (UTC)"; "" when none is set
    opens: dt.datetime | None = None  # when a closed window opens next


@dataclass(frozen=True)
class ClusterFacts:
    """`by_data_size`: 6.0.3+ at FCV 6.0+ compares bytes, earlier releases chunk counts with
    `chunk_threshold` (see zonectl.explain.policy)."""

    shards: tuple[ShardFacts, ...]
    by_data_size: bool
    chunk_threshold: int = 1
    balancer: BalancerFacts = field(default_factory=BalancerFacts)
    now: dt.datetime | None = None  # for "opens in 3h" (given, never read)

    def shard(self, shard_id: str) -> ShardFacts | None:
        return next((s for s in self.shards if s.id == shard_id), None)
