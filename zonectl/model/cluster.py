"""The live cluster as zonectl sees it: read by `zonectl.mongo`, compared by the planner.

Only what a plan needs: shards and their zones, sharded collections, zone ranges exactly as
`config.tags` stores them, per-collection balancing and the balancer settings. Chunks are
never held here in bulk; impact estimates are counted by targeted queries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from zonectl.model.capacity import ShardVolume
from zonectl.model.shard_lifecycle import ShardDrain

# Databases whose sharded collections are MongoDB's own (config.system.sessions in every
# cluster): not the operator's to manage, so export and status leave them out unless they
# carry zone ranges or are named.
MONGODB_OWN_PREFIXES = ("config.", "admin.")


def is_mongodb_own(ns: str) -> bool:
    return ns.startswith(MONGODB_OWN_PREFIXES)


@dataclass(frozen=True)
class LiveShard:
    id: str
    host: str = ""
    zones: tuple[str, ...] = ()  # config.shards.tags, in stored order
    draining: bool = False


@dataclass(frozen=True)
class LiveRange:
    """A config.tags document: bounds exactly as stored (padded with MinKey when sharded)."""

    namespace: str
    zone: str
    min: Mapping[str, Any]
    max: Mapping[str, Any]


@dataclass(frozen=True)
class LiveCollection:
    namespace: str
    key: Mapping[str, Any]  # shard key pattern, e.g. {"ts": 1, "_id": 1} or {"x": "hashed"}
    uuid: Any = None  # bson Binary/UUID, for config.chunks look-ups on 5.0+
    unique: bool = False
    no_balance: bool = False
    # The balancer-settings fields of its config.collections entry, as stored
    # (maxChunkSizeBytes, enableAutoMerge, defragmentCollection, defragmentationPhase).
    settings: Mapping[str, Any] = field(default_factory=dict)
    # balancerCollectionStatus, read only while it is defragmenting (phase and progress).
    balancer_status: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class LiveUnsharded:
    """An unsharded collection: the shard it lives on (its database's primary, or its one
    chunk once 8.0 tracks it as `unsplittable`) and what listCollections says it is."""

    namespace: str
    shard: str
    kind: str = "collection"  # listCollections `type`: "collection" | "view" | "timeseries"
    capped: bool = False
    tracked: bool = False  # an `unsplittable` config.collections entry (8.0+)


@dataclass(frozen=True)
class LiveMove:
    """A moveCollection running on the server (config.reshardingOperations, 8.0+)."""

    namespace: str
    to_shard: str
    from_shard: str = ""
    started: Any = None  # datetime when the server records it
    state: str = ""


@dataclass(frozen=True)
class LiveResharding:
    """A reshardCollection running on the server (config.reshardingOperations, 5.0+)."""

    namespace: str
    key: Mapping[str, Any]
    state: str = ""
    started: Any = None  # datetime when the server records it


@dataclass(frozen=True)
class ReshardProgress:
    """A running resharding as $currentOp reports it, summed over its recipients."""

    namespace: str
    state: str  # the coordinator's state ("" when the server does not say)
    bytes_copied: int
    bytes_to_copy: int
    elapsed_s: int
    remaining_s: int | None  # the recipients' own estimate (None: not reported yet)

    @property
    def share(self) -> float:
        """Copied share; an empty collection has nothing left to copy once past cloning."""
        if not self.bytes_to_copy:
            return 0.0 if self.state in ("", "initializing", "cloning") else 1.0
        return self.bytes_copied / self.bytes_to_copy


@dataclass(frozen=True)
class LiveBalancer:
    mode: str = "full"  # "full" | "off" (| "autoSplitOnly" before 7.0)
    stopped: bool = False
    active_window: Mapping[str, str] | None = None  # {"start": "HH:MM", "stop": "HH:MM"}
    in_round: bool = False
    # activeWindowDOW when MongoDB honours it (FCV >= 8.3, non-empty): then activeWindow
    # is ignored (reference balancer-settings §1.4). Each entry {"day", "start", "stop"}.
    day_windows: tuple[Mapping[str, str], ...] = ()

    @property
    def enabled(self) -> bool:
        return self.mode == "full" and not self.stopped


@dataclass(frozen=True)
class ClusterState:
    version: str = ""  # buildInfo version, e.g. "7.0.16"
    fcv: str | None = None
    shards: tuple[LiveShard, ...] = ()
    collections: Mapping[str, LiveCollection] = field(default_factory=dict)
    ranges: tuple[LiveRange, ...] = ()
    balancer: LiveBalancer = field(default_factory=LiveBalancer)
    # Read only when the policy needs them (unsharded pins, patterns): empty otherwise.
    databases: Mapping[str, str] = field(default_factory=dict)  # db -> primary shard
    unsharded: Mapping[str, LiveUnsharded] = field(default_factory=dict)
    moves: tuple[LiveMove, ...] = ()
    shard_bytes: Mapping[str, int] = field(default_factory=dict)  # listDatabases, per shard
    # config.queryAnalyzers (7.0+): namespace -> samples per second of an active ("full")
    # analyzer; a namespace absent here is not sampled. None: not read (before 7.0, or
    # the user may not read it).
    samplers: Mapping[str, float] | None = None
    # Read only for namespaces whose policy key differs from the live one: their indexes
    # (listIndexes specs), and the reshardings running in the cluster.
    indexes: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    reshardings: tuple[LiveResharding, ...] = ()
    # config.settings documents by _id (balancer, chunksize, automerge), as stored.
    settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # (namespace, setting key) of one-shot settings zonectl already ran on the collection
    # as it is now (same UUID): defragmentation that has started once is not started again.
    once_done: frozenset[tuple[str, str]] = frozenset()
    # What each shard being removed (by the policy) or draining (in config.shards) still
    # holds, by shard id (model/shard_lifecycle.py); empty when none is.
    drains: Mapping[str, ShardDrain] = field(default_factory=dict)
    # Shards the policy removes that the cluster no longer has, with when config.changelog
    # records their removal (None: it does not, e.g. a misspelt name or a rolled-over log).
    removed_before: Mapping[str, Any] = field(default_factory=dict)
    # Each shard's volume by shard id (model/capacity.py), read once a plan moves data.
    # None: not read; `volumes_unread` then says why when it was tried (the user may not
    # run dbStats), "" when the plan moves nothing.
    volumes: Mapping[str, ShardVolume] | None = None
    volumes_unread: str = ""

    @property
    def major(self) -> int:
        """The server's major version (7 when unknown)."""
        head = self.version.split(".")[0]
        return int(head) if head.isdigit() else 7

    @property
    def features(self) -> tuple[int, int]:
        """The release whose features the cluster has: the binary's, or its feature
        compatibility version when that lags (8.0 at FCV 7.0 has no moveCollection)."""
        return feature_release(self.version, self.fcv) or (self.major, 0)

    @property
    def features_text(self) -> str:
        """How `features` reads in a message: "7.0.16", or "8.0.4 at FCV 7.0"."""
        own, fcv = release(self.version), release(self.fcv or "")
        lags = own is not None and fcv is not None and fcv < own
        return f"{self.version} at FCV {self.fcv}" if lags else self.version

    def resharding_of(self, namespace: str) -> LiveResharding | None:
        return next((r for r in self.reshardings if r.namespace == namespace), None)

    def move_of(self, namespace: str) -> LiveMove | None:
        return next((m for m in self.moves if m.namespace == namespace), None)

    def shard(self, shard_id: str) -> LiveShard | None:
        return next((s for s in self.shards if s.id == shard_id), None)

    def ranges_of(self, namespace: str) -> tuple[LiveRange, ...]:
        return tuple(r for r in self.ranges if r.namespace == namespace)

    def zones(self) -> frozenset[str]:
        """Zones that exist: a zone exists when some shard carries it (reference §1.1)."""
        return frozenset(z for s in self.shards for z in s.zones)


def release(version: str) -> tuple[int, int] | None:
    """(major, minor) of "7.0.16" or "7.0"; None when it does not read as a version."""
    parts = version.split(".")
    if len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
        return None
    return int(parts[0]), int(parts[1])


def feature_release(version: str, fcv: str | None) -> tuple[int, int] | None:
    """The lower of the binary's release and the FCV (None when neither reads)."""
    known = [r for r in (release(version), release(fcv or "")) if r is not None]
    return min(known) if known else None


DOW_SINCE = (8, 3)  # featureFlagBalancerWindowDOW: version 8.3, FCV-gated (§1.4)


def day_windows_in_force(dow: Any, version: str, fcv: str | None) -> tuple[Mapping[str, str], ...]:
    """The stored `activeWindowDOW` entries the balancer uses: none below FCV 8.3 (warning
    8248700 "Ignoring activeWindowDOW settings for versions under 8.3") or for an empty
    array, which leaves `activeWindow` in force (balancer_configuration.cpp
    `isTimeInBalancingWindow`)."""
    features = feature_release(version, fcv)
    if features is None or features < DOW_SINCE or not isinstance(dow, list | tuple):
        return ()
    return tuple(
        {k: str(e[k]) for k in ("day", "start", "stop") if k in e}
        for e in dow
        if isinstance(e, Mapping)
    )
