"""One frozen op class per admin action; the planner emits them, the views and the executor
read what each declares about itself (plan/op_base.py). Each op describes itself, names the
database, gives the exact command document it maps to (reference §1-§4) and how the
executor reads the answer, and its inverse for rollback notes. This module holds the zone
and balancer ops and lists every class; plan/data_ops.py holds the ops that move data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from zonectl.plan.data_ops import (
    MoveCollection,
    MoveRange,
    RefineShardKey,
    ReshardCollection,
    ShardKeyOp,
    SplitChunk,
)
from zonectl.plan.op_base import (
    BALANCER_MAX_TIME_MS,
    MAJORITY,
    Counts,
    Format,
    Impact,
    Moves,
    Op,
    Phase,
    Reply,
    Sign,
    format_bytes,
    format_range,
    on_off,
    plural,
)

__all__ = [
    "BALANCER_MAX_TIME_MS",
    "MAJORITY",
    "Impact",
    "MoveCollection",
    "MoveRange",
    "Op",
    "RefineShardKey",
    "Reply",
    "ReshardCollection",
    "ShardKeyOp",
    "SplitChunk",
    "format_range",
]


@dataclass(frozen=True)
class ZoneMembershipOp(Op):
    """A shard joining (`joins`) or leaving a zone."""

    joins: ClassVar[bool]
    counts_as: ClassVar[Counts] = "membership"
    moves: ClassVar[Moves] = ""
    apply_only: ClassVar[bool] = True  # a cron rotate never changes memberships
    shard: str
    zone: str

    def line(self) -> str:
        return f"shard {self.shard} {'joins' if self.joins else 'leaves'} zone {self.zone}"


@dataclass(frozen=True)
class AddShardToZone(ZoneMembershipOp):
    kind: ClassVar[str] = "add_shard_to_zone"
    joins: ClassVar[bool] = True
    sign: ClassVar[Sign] = "+"
    phase: ClassVar[Phase] = "join"  # first: a range needs a shard in its zone (§1.5 (b))
    destructive: ClassVar[bool] = False

    def describe(self) -> str:
        return f"add shard {self.shard} to zone {self.zone}"

    def command(self) -> dict[str, Any]:
        return {"addShardToZone": self.shard, "zone": self.zone}

    def inverse(self) -> Op:
        return RemoveShardFromZone(self.shard, self.zone)


@dataclass(frozen=True)
class RemoveShardFromZone(ZoneMembershipOp):
    kind: ClassVar[str] = "remove_shard_from_zone"
    joins: ClassVar[bool] = False
    sign: ClassVar[Sign] = "-"
    phase: ClassVar[Phase] = "leave"  # after the ranges: ZoneStillInUse (§1.3)
    destructive: ClassVar[bool] = True

    def describe(self) -> str:
        return f"remove shard {self.shard} from zone {self.zone}"

    def command(self) -> dict[str, Any]:
        return {"removeShardFromZone": self.shard, "zone": self.zone}

    def callout(self, code: Format, prose: Format) -> str:
        return (
            f"shard {code(self.shard)} leaves zone {code(self.zone)}: its chunks of that zone "
            "move away"
        )

    def inverse(self) -> Op:
        return AddShardToZone(self.shard, self.zone)


@dataclass(frozen=True)
class ZoneRangeOp(Op):
    """A zone range of one namespace assigned (`adds`) or removed: updateZoneKeyRange."""

    adds: ClassVar[bool]
    phase: ClassVar[Phase] = "range"
    apply_only: ClassVar[bool] = False
    ns: str
    zone: str
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    impact: Impact | None = None

    @property
    def namespace(self) -> str:
        return self.ns


@dataclass(frozen=True)
class AssignZoneRange(ZoneRangeOp):
    """updateZoneKeyRange with a zone name; bounds already padded to the full key."""

    kind: ClassVar[str] = "assign_zone_range"
    adds: ClassVar[bool] = True
    sign: ClassVar[Sign] = "+"
    counts_as: ClassVar[Counts] = "range_added"
    moves: ClassVar[Moves] = "migrates"  # chunks outside the zone's shards (reference §5.4)
    destructive: ClassVar[bool] = False

    @property
    def placed_in(self) -> str:
        return self.zone

    def describe(self) -> str:
        return f"assign {format_range(self.min, self.max)} of {self.ns} to zone {self.zone}"

    def line(self) -> str:
        text = f"{format_range(self.min, self.max)} zone {self.zone}"
        if self.impact is None:
            return text
        i = self.impact
        return f"{text}  (~{plural(i.migrating, 'chunk')}, ~{format_bytes(i.bytes)} to migrate)"

    def command(self) -> dict[str, Any]:
        return {
            "updateZoneKeyRange": self.ns,
            "min": dict(self.min),
            "max": dict(self.max),
            "zone": self.zone,
        }

    def inverse(self) -> Op:
        return RemoveZoneRange(self.ns, self.zone, self.min, self.max)


@dataclass(frozen=True)
class RemoveZoneRange(ZoneRangeOp):
    """updateZoneKeyRange with zone null. The bounds are exactly those config.tags stores:
    a removal that does not match them exactly deletes nothing and still answers ok
    (reference §1.6), so they are never rebuilt from the policy."""

    # `zone` is informational: the server ignores it on removal.
    kind: ClassVar[str] = "remove_zone_range"
    adds: ClassVar[bool] = False
    sign: ClassVar[Sign] = "-"
    counts_as: ClassVar[Counts] = "range_removed"
    moves: ClassVar[Moves] = ""  # lifts a constraint; moves nothing by itself
    destructive: ClassVar[bool] = True

    def describe(self) -> str:
        return f"remove {format_range(self.min, self.max)} of {self.ns} from zone {self.zone}"

    def line(self) -> str:
        text = f"{format_range(self.min, self.max)} zone {self.zone}"
        if self.impact is None:
            return text
        verb = "leaves" if self.impact.chunks == 1 else "leave"
        return f"{text}  ({plural(self.impact.chunks, 'chunk')} {verb} the zone)"

    def callout(self, code: Format, prose: Format) -> str:
        return (
            f"{code(self.ns)} range {code(format_range(self.min, self.max))} leaves zone "
            f"{code(self.zone)}: its chunks are no longer held to the zone"
        )

    def command(self) -> dict[str, Any]:
        return {
            "updateZoneKeyRange": self.ns,
            "min": dict(self.min),
            "max": dict(self.max),
            "zone": None,
        }

    def inverse(self) -> Op:
        return AssignZoneRange(self.ns, self.zone, self.min, self.max)


@dataclass(frozen=True)
class SetCollectionBalancing(Op):
    """The noBalance switch: a plain update of config.collections through mongos, as the
    shell helpers sh.enableBalancing/sh.disableBalancing do (reference §3.5); with
    `by_command` (8.1+), configureCollectionBalancing enableBalancing, as mongosh does from FCV
    8.1 (balancer-settings §4.1; the manual says 8.0.10, mongosh gates on FCV 8.1)."""

    kind: ClassVar[str] = "set_collection_balancing"
    sign: ClassVar[Sign] = "~"
    counts_as: ClassVar[Counts] = "setting"
    phase: ClassVar[Phase] = "last"
    moves: ClassVar[Moves] = ""
    destructive: ClassVar[bool] = False
    apply_only: ClassVar[bool] = False
    ns: str
    enabled: bool
    previous: bool | None = None
    by_command: bool = False

    @property
    def namespace(self) -> str:
        return self.ns

    @property
    def database(self) -> str:  # type: ignore[override]
        return "admin" if self.by_command else "config"

    @property
    def reply(self) -> Reply:
        # configureCollectionBalancing answers NamespaceNotSharded itself when no entry
        return "command" if self.by_command else "matched"

    def describe(self) -> str:
        return f"{'enable' if self.enabled else 'disable'} balancing of {self.ns}"

    def line(self) -> str:
        return f"balancing {on_off(self.previous)} -> {on_off(self.enabled)}"

    def callout(self, code: Format, prose: Format) -> str:
        if self.enabled:
            return ""
        ns = code(self.ns)
        return f"balancing of {ns} turned off: chunks stop moving, zones are not enforced"

    def command(self) -> dict[str, Any]:
        if self.by_command:
            return {"configureCollectionBalancing": self.ns, "enableBalancing": self.enabled}
        return {
            "update": "collections",
            "updates": [{"q": {"_id": self.ns}, "u": {"$set": {"noBalance": not self.enabled}}}],
            "writeConcern": dict(MAJORITY),
        }

    def inverse(self) -> Op | None:
        if self.previous is None:
            return None
        return SetCollectionBalancing(self.ns, self.previous, self.enabled, self.by_command)


@dataclass(frozen=True)
class SetQueryAnalyzer(Op):
    """Query sampling of one collection (7.0+): configureQueryAnalyzer with mode "full" and
    samplesPerSecond, or mode "off" (configure_query_analyzer_cmd.cpp). `rate` None: off;
    `previous` None: sampling was off (or never configured)."""

    kind: ClassVar[str] = "set_query_analyzer"
    sign: ClassVar[Sign] = "~"
    counts_as: ClassVar[Counts] = "setting"
    phase: ClassVar[Phase] = "last"
    moves: ClassVar[Moves] = ""
    destructive: ClassVar[bool] = False
    apply_only: ClassVar[bool] = False
    ns: str
    rate: float | None
    previous: float | None = None

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        if self.rate is None:
            return f"turn query sampling off for {self.ns}"
        return f"sample {format_rate(self.rate)} queries/s of {self.ns}"

    def line(self) -> str:
        return f"query sampling {_samples(self.previous)} -> {_samples(self.rate)}"

    # No callout: query sampling on or off moves no data and enforces no zone; a setting,
    # listed with the changes, not a destructive change (docs/review.md counts these).

    def command(self) -> dict[str, Any]:
        if self.rate is None:
            return {"configureQueryAnalyzer": self.ns, "mode": "off"}
        return {"configureQueryAnalyzer": self.ns, "mode": "full", "samplesPerSecond": self.rate}

    def inverse(self) -> Op:
        return SetQueryAnalyzer(self.ns, self.previous, self.rate)


def format_rate(rate: float | None) -> str:
    """`5`, `0.5`; "off" for None."""
    if rate is None:
        return "off"
    return f"{rate:g}"


def _samples(rate: float | None) -> str:
    return "off" if rate is None else f"{format_rate(rate)} samples/s"


@dataclass(frozen=True)
class SetBalancerEnabled(Op):
    """balancerStart/balancerStop; both write config.settings mode+stopped (reference §3.1)."""

    kind: ClassVar[str] = "set_balancer_enabled"
    sign: ClassVar[Sign] = "~"
    counts_as: ClassVar[Counts] = "setting"
    phase: ClassVar[Phase] = "last"
    moves: ClassVar[Moves] = ""
    destructive: ClassVar[bool] = False
    apply_only: ClassVar[bool] = False
    enabled: bool
    previous: bool | None = None

    def describe(self) -> str:
        return f"{'start' if self.enabled else 'stop'} the balancer"

    def line(self) -> str:
        return f"enabled {on_off(self.previous)} -> {on_off(self.enabled)}"

    def callout(self, code: Format, prose: Format) -> str:
        if self.enabled:
            return ""
        return "the balancer is stopped: no zone is enforced until it starts again"

    def command(self) -> dict[str, Any]:
        name = "balancerStart" if self.enabled else "balancerStop"
        return {name: 1, "maxTimeMS": BALANCER_MAX_TIME_MS}

    def inverse(self) -> Op | None:
        if self.previous is None:
            return None
        return SetBalancerEnabled(self.previous, self.enabled)


@dataclass(frozen=True)
class SetBalancerWindow(Op):
    """The activeWindow of config.settings {_id: "balancer"}; no server command sets it, the
    shell writes the document (reference §2.5). `start`/`stop` None removes the window."""

    kind: ClassVar[str] = "set_balancer_window"
    sign: ClassVar[Sign] = "~"
    counts_as: ClassVar[Counts] = "setting"
    phase: ClassVar[Phase] = "last"
    moves: ClassVar[Moves] = ""
    destructive: ClassVar[bool] = False
    apply_only: ClassVar[bool] = False
    database: ClassVar[str] = "config"
    start: str | None
    stop: str | None
    previous: tuple[str, str] | None = None

    @property
    def reply(self) -> Reply:
        return "write"

    def describe(self) -> str:
        if self.start is None:
            return "remove the balancer active window"
        return f"set the balancer active window to {self.start}-{self.stop}"

    def line(self) -> str:
        always = "none (always active)"
        before = f"{self.previous[0]}-{self.previous[1]}" if self.previous else always
        after = f"{self.start}-{self.stop}" if self.start else always
        return f"active window {before} -> {after}"

    def callout(self, code: Format, prose: Format) -> str:
        return f"balancer window changes: {prose(self.describe())}"

    def command(self) -> dict[str, Any]:
        update: dict[str, Any]
        if self.start is None:
            update = {"$unset": {"activeWindow": True}}
        else:
            update = {"$set": {"activeWindow": {"start": self.start, "stop": self.stop}}}
        return {
            "update": "settings",
            "updates": [{"q": {"_id": "balancer"}, "u": update, "upsert": True}],
            "writeConcern": dict(MAJORITY),
        }

    def inverse(self) -> Op:
        now = (self.start, self.stop) if self.start is not None and self.stop else None
        if self.previous is None:
            return SetBalancerWindow(None, None, now)
        return SetBalancerWindow(self.previous[0], self.previous[1], now)


OP_CLASSES: tuple[type[Op], ...] = (
    AddShardToZone,
    RemoveShardFromZone,
    AssignZoneRange,
    RemoveZoneRange,
    SetCollectionBalancing,
    SetQueryAnalyzer,
    SetBalancerEnabled,
    SetBalancerWindow,
    SplitChunk,
    MoveRange,
    MoveCollection,
    RefineShardKey,
    ReshardCollection,
)
OPS_BY_KIND: dict[str, type[Op]] = {cls.kind: cls for cls in OP_CLASSES}
