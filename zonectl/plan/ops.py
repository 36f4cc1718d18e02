"""One frozen op class per admin action; the planner emits them, the views and the executor
read what each declares about itself (plan/op_base.py). Each op describes itself, names the
database, gives the exact command document it maps to (reference §1-§4) and how the
executor reads the answer, and its inverse for rollback notes. This module holds the zone
ops and re-exports the others; plan/switch_ops.py holds the balancer switches,
plan/data_ops.py the ops that move data, plan/kinds.py every kind by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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
    Format,
    Impact,
    MembershipChange,
    Op,
    RangeChange,
    Reply,
    format_bytes,
    format_range,
    plural,
)
from zonectl.plan.switch_ops import (
    SetBalancerEnabled,
    SetBalancerWindow,
    SetCollectionBalancing,
    SetQueryAnalyzer,
    format_rate,
)

__all__ = [
    "BALANCER_MAX_TIME_MS",
    "MAJORITY",
    "AddShardToZone",
    "AssignZoneRange",
    "Impact",
    "MoveCollection",
    "MoveRange",
    "Op",
    "RefineShardKey",
    "RemoveShardFromZone",
    "RemoveZoneRange",
    "Reply",
    "ReshardCollection",
    "SetBalancerEnabled",
    "SetBalancerWindow",
    "SetCollectionBalancing",
    "SetQueryAnalyzer",
    "ShardKeyOp",
    "SplitChunk",
    "ZoneMembershipOp",
    "ZoneRangeOp",
    "format_range",
    "format_rate",
]


@dataclass(frozen=True)
class ZoneMembershipOp(
    Op,
    counts_as="membership",
    apply_only=True,  # a cron rotate never changes memberships
    # $addToSet / $pull on config.shards: a second add or removal changes nothing and
    # answers ok (reference §1.2 "Idempotent", §1.3: no shard holding it, nothing to do).
    idempotent=True,
):
    """A shard joining (sign `+`) or leaving a zone."""

    shard: str
    zone: str

    def membership_change(self) -> MembershipChange:
        return MembershipChange(self.shard, self.zone, joins=self.sign == "+")

    def line(self) -> str:
        joins = self.sign == "+"
        return f"shard {self.shard} {'joins' if joins else 'leaves'} zone {self.zone}"


@dataclass(frozen=True)
class AddShardToZone(
    ZoneMembershipOp,
    kind="add_shard_to_zone",
    sign="+",
    phase="join",  # first: a range needs a shard in its zone (§1.5 (b))
):
    def describe(self) -> str:
        return f"add shard {self.shard} to zone {self.zone}"

    def command(self) -> dict[str, Any]:
        return {"addShardToZone": self.shard, "zone": self.zone}

    def inverse(self) -> Op:
        return RemoveShardFromZone(self.shard, self.zone)


@dataclass(frozen=True)
class RemoveShardFromZone(
    ZoneMembershipOp,
    kind="remove_shard_from_zone",
    sign="-",
    phase="leave",  # after the ranges: ZoneStillInUse (§1.3)
    destructive=True,
):
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
class ZoneRangeOp(
    Op,
    phase="range",
    # An identical re-add succeeds and writes nothing (reference §1.5 (d)); a removal that
    # matches nothing answers ok (§1.6). Apply verifies both in config.tags after.
    idempotent=True,
):
    """A zone range of one namespace assigned (sign `+`) or removed: updateZoneKeyRange."""

    ns: str
    zone: str
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    impact: Impact | None = None

    @property
    def namespace(self) -> str:
        return self.ns

    def range_change(self) -> RangeChange:
        return RangeChange(self.ns, self.zone, self.min, self.max, adds=self.sign == "+")


@dataclass(frozen=True)
class AssignZoneRange(
    ZoneRangeOp,
    kind="assign_zone_range",
    sign="+",
    counts_as="range_added",
    moves="migrates",  # chunks outside the zone's shards (reference §5.4)
):
    """updateZoneKeyRange with a zone name; bounds already padded to the full key."""

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
class RemoveZoneRange(
    ZoneRangeOp,
    kind="remove_zone_range",
    sign="-",
    counts_as="range_removed",
    moves="",  # lifts a constraint; moves nothing by itself
    destructive=True,
):
    """updateZoneKeyRange with zone null. The bounds are exactly those config.tags stores:
    a removal that does not match them exactly deletes nothing and still answers ok
    (reference §1.6), so they are never rebuilt from the policy. `zone` is informational:
    the server ignores it on removal."""

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
