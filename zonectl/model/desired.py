"""The desired state: what the policy files say, merged, validated, and free of YAML.

Built by `zonectl.policy` (the only ruamel user); read by the planner. Bounds are decoded
BSON values (bson.MinKey, datetime, ObjectId, Int64, ...). Firehose windows stay symbolic
here: the boundary depends on `now`, and is computed by `zonectl.firehose` and handed to
the planner, which keeps the planner free of clocks and croniter.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from zonectl.diagnostics import Position
from zonectl.model.capacity import DEFAULT_LIMIT, DiskLimit
from zonectl.model.shard_lifecycle import ShardSpec

FirehoseType = Literal["date", "objectId", "epochSeconds", "epochMillis"]


@dataclass(frozen=True)
class ZoneRange:
    """One explicit `ranges:` entry: [min, max) of the shard key belongs to `zone`."""

    zone: str
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    position: Position | None = dataclasses.field(default=None, compare=False)


@dataclass(frozen=True)
class Firehose:
    """A rolling window: [boundary, MaxKey) -> hot, [MinKey, boundary) -> cold (if set)."""

    field: str
    type: FirehoseType
    schedule: str  # cron expression
    timezone: str  # IANA name
    keep: int  # the boundary is the keep-th most recent tick <= now
    hot: str
    cold: str | None = None
    position: Position | None = dataclasses.field(default=None, compare=False)


@dataclass(frozen=True)
class Slices:
    """Collection-per-period: newest `keep` slices (by the name's date) -> hot, older -> cold.
    The namespace of the owning CollectionPolicy is a strftime template."""

    schedule: str
    timezone: str
    keep: int
    hot: str
    cold: str | None = None
    position: Position | None = dataclasses.field(default=None, compare=False)


@dataclass(frozen=True)
class Sampling:
    """Query sampling of a collection (configureQueryAnalyzer, 7.0+): `rate` samples per
    second, or None for `sampling: off`."""

    rate: float | None
    position: Position | None = dataclasses.field(default=None, compare=False)


@dataclass(frozen=True)
class SettingValue:
    """A balancer setting the policy names (zonectl.balancer_settings has its row): the
    value as plain data, and where the policy says it."""

    value: Any
    position: Position | None = dataclasses.field(default=None, compare=False)


@dataclass(frozen=True)
class CollectionPolicy:
    namespace: str
    key: Mapping[str, Any] | None = None  # expected shard key; None: take the live one
    ranges: tuple[ZoneRange, ...] = ()
    pin: str | None = None  # the whole key space belongs to this zone
    firehose: Firehose | None = None
    balancing: bool | None = None  # None: not managed
    migrate: Literal["eager", "balancer", "reshard"] | None = None
    # The reviewer-visible opt-in for reshardCollection (a key change that is no refine).
    reshard: bool = False
    position: Position | None = dataclasses.field(default=None, compare=False)
    pattern: str | None = None  # the `collections:` glob this namespace was expanded from
    slices: Slices | None = None  # only on a template entry (in DesiredState.patterns)
    sampling: Sampling | None = None  # None: not managed
    # Balancer settings of this collection by policy key; a key absent: not managed.
    settings: Mapping[str, SettingValue] = dataclasses.field(default_factory=dict)
    # The entry names `ranges:`, even empty: `ranges: []` says "no zones" (the live go).
    names_ranges: bool = False

    @property
    def manages_ranges(self) -> bool:
        """Whether the entry owns its namespace's zone ranges: only when it names `ranges`,
        `pin`, `firehose` or `slices` (ownership per aspect, ARCHITECTURE.md, "Principles")."""
        return self.names_ranges or bool(self.ranges or self.pin or self.firehose or self.slices)

    def aspects(self) -> frozenset[str]:
        """What the entry manages; the cluster keeps everything else as it is. A setting of
        its own (`None`: not managed) joins here as one more row."""
        named = {
            "ranges": self.manages_ranges,
            "key": self.key is not None,
            "balancing": self.balancing is not None,
            "sampling": self.sampling is not None,
        }
        return frozenset(aspect for aspect, on in named.items() if on) | frozenset(self.settings)

    def zones(self) -> frozenset[str]:
        """Every zone this collection's policy refers to."""
        names = {r.zone for r in self.ranges}
        if self.pin:
            names.add(self.pin)
        if self.firehose:
            names.add(self.firehose.hot)
            if self.firehose.cold:
                names.add(self.firehose.cold)
        if self.slices:
            names.add(self.slices.hot)
            if self.slices.cold:
                names.add(self.slices.cold)
        return frozenset(names)


@dataclass(frozen=True)
class ActiveWindow:
    start: str  # "HH:MM", config server local time
    stop: str


@dataclass(frozen=True)
class BalancerPolicy:
    enabled: bool | None = None  # None: not managed
    # Absent from the policy: not managed. Present as None: no window (always active).
    active_window: ActiveWindow | None = None
    manage_window: bool = False
    # IANA zone in which the config server reads active_window (None: not stated, UTC).
    # Never sent to the cluster: only the forecast reads it.
    timezone: str | None = None
    position: Position | None = dataclasses.field(default=None, compare=False)
    # The other balancer settings by policy key; a key absent: not managed.
    settings: Mapping[str, SettingValue] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class DesiredState:
    """All policy files merged. Ownership (ARCHITECTURE.md, "Principles"): zonectl is
    authoritative for the zones in `managed_zones` (their shard memberships) and, per
    namespace in `collections`, for the aspects its entry names (`CollectionPolicy.aspects`);
    everything else is unmanaged and left alone."""

    shards: Mapping[str, frozenset[str]] = dataclasses.field(default_factory=dict)  # shard -> zones
    collections: Mapping[str, CollectionPolicy] = dataclasses.field(default_factory=dict)
    balancer: BalancerPolicy | None = None
    sources: tuple[str, ...] = ()  # the files it was read from
    digest: str = ""  # sha256 of the normalized policy, for plans and audit
    # Where each shard entry stands in the policy files, for plan-time errors.
    shard_positions: Mapping[str, Position] = dataclasses.field(default_factory=dict, compare=False)
    # Glob keys of `collections:` (fnmatch, dot literal): expanded against live namespaces by
    # `zonectl.plan.patterns` before planning; `collections` then holds what they matched.
    patterns: Mapping[str, CollectionPolicy] = dataclasses.field(default_factory=dict)
    own_database: str = "zonectl"  # never matched by a pattern
    # The `shards:` entries given in long form with a `state` or `host`
    # (model/shard_lifecycle.py); a shard absent here is active and has no host to add.
    # A removed shard's zones are dropped from `shards` (with a warning).
    shard_specs: Mapping[str, ShardSpec] = dataclasses.field(default_factory=dict)
    # `disk: {limit}` for the cluster (None: the default, 85 %) and per shard.
    disk_limit: DiskLimit | None = None
    shard_disk_limits: Mapping[str, DiskLimit] = dataclasses.field(default_factory=dict)

    def limit_of(self, shard: str) -> DiskLimit:
        """The disk limit of `shard`: its own, else the cluster's, else 85 %."""
        return self.shard_disk_limits.get(shard) or self.disk_limit or DEFAULT_LIMIT

    @property
    def removed_shards(self) -> frozenset[str]:
        """Shards the policy drains and removes from the cluster."""
        return frozenset(s for s, spec in self.shard_specs.items() if spec.state == "removed")

    @property
    def managed_zones(self) -> frozenset[str]:
        """Zones this policy is authoritative for: any zone named under `shards`."""
        zones: set[str] = set()
        for names in self.shards.values():
            zones |= names
        return frozenset(zones)
