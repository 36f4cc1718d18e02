"""One frozen op class per admin action; the planner emits them, the renderers dispatch on
their type. Each op describes itself, names the database, gives the exact command document
it maps to (reference §1-§4) and how the executor reads the answer, and its inverse for
rollback notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from zonectl.model.keys import format_value

Reply = Literal["command", "write", "matched"]

# mongosh's sh.startBalancer/stopBalancer and sh.disableBalancing use these (reference §3.1, §3.5).
BALANCER_MAX_TIME_MS = 60_000
MAJORITY = {"w": "majority", "wtimeout": 60_000}


@dataclass(frozen=True)
class Impact:
    """Estimated data movement a range op causes: chunks (and bytes) that will migrate."""

    chunks: int = 0  # chunks overlapping the range
    migrating: int = 0  # of those, chunks on a shard outside the range's zone
    bytes: int = 0  # estimated bytes of the migrating chunks


def format_range(lo: Mapping[str, Any], hi: Mapping[str, Any]) -> str:
    return f"[{format_value(lo)}, {format_value(hi)})"


@dataclass(frozen=True)
class Op:
    """Base of every op. `kind` is the stable name used in saved plans and JSON output."""

    kind: ClassVar[str] = ""
    database: ClassVar[str] = "admin"
    destructive: ClassVar[bool] = False  # removes something the cluster had
    setting: ClassVar[bool] = False  # changes a setting (counted as such in summaries)

    @property
    def namespace(self) -> str | None:
        return None

    def describe(self) -> str:
        raise NotImplementedError

    def command(self) -> dict[str, Any]:
        raise NotImplementedError

    def inverse(self) -> Op | None:
        """The op that undoes this one, for rollback notes; None when there is none."""
        return None

    def setting_change(self) -> tuple[str | None, str, Any] | None:
        """(namespace or None for the cluster, policy key, new value) of a balancer setting
        this op writes (plan/setting_ops.py); None for other ops."""
        return None

    @property
    def reply(self) -> Reply:
        """How the executor reads the server's answer: "command" (ok or an error), "write"
        (an `update` answers ok with writeErrors inside), "matched" (a write that must
        match a document: config.collections of a collection that may have gone)."""
        return "command"

    def memo(self) -> dict[str, Any] | None:
        """A record zonectl keeps in its own database once this op has succeeded (a one-shot
        setting it must not start again); None for most ops."""
        return None


@dataclass(frozen=True)
class AddShardToZone(Op):
    kind: ClassVar[str] = "add_shard_to_zone"
    shard: str
    zone: str

    def describe(self) -> str:
        return f"add shard {self.shard} to zone {self.zone}"

    def command(self) -> dict[str, Any]:
        return {"addShardToZone": self.shard, "zone": self.zone}

    def inverse(self) -> Op:
        return RemoveShardFromZone(self.shard, self.zone)


@dataclass(frozen=True)
class RemoveShardFromZone(Op):
    kind: ClassVar[str] = "remove_shard_from_zone"
    destructive: ClassVar[bool] = True
    shard: str
    zone: str

    def describe(self) -> str:
        return f"remove shard {self.shard} from zone {self.zone}"

    def command(self) -> dict[str, Any]:
        return {"removeShardFromZone": self.shard, "zone": self.zone}

    def inverse(self) -> Op:
        return AddShardToZone(self.shard, self.zone)


@dataclass(frozen=True)
class AssignZoneRange(Op):
    """updateZoneKeyRange with a zone name; bounds already padded to the full key."""

    kind: ClassVar[str] = "assign_zone_range"
    ns: str
    zone: str
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    impact: Impact | None = None

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        return f"assign {format_range(self.min, self.max)} of {self.ns} to zone {self.zone}"

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
class RemoveZoneRange(Op):
    """updateZoneKeyRange with zone null. The bounds are exactly those config.tags stores:
    a removal that does not match them exactly deletes nothing and still answers ok
    (reference §1.6), so they are never rebuilt from the policy."""

    kind: ClassVar[str] = "remove_zone_range"
    destructive: ClassVar[bool] = True
    ns: str
    zone: str  # informational: the server ignores it on removal
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    impact: Impact | None = None

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        return f"remove {format_range(self.min, self.max)} of {self.ns} from zone {self.zone}"

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
    setting: ClassVar[bool] = True
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
    setting: ClassVar[bool] = True
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


@dataclass(frozen=True)
class SetBalancerEnabled(Op):
    """balancerStart/balancerStop; both write config.settings mode+stopped (reference §3.1)."""

    kind: ClassVar[str] = "set_balancer_enabled"
    setting: ClassVar[bool] = True
    enabled: bool
    previous: bool | None = None

    def describe(self) -> str:
        return f"{'start' if self.enabled else 'stop'} the balancer"

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
    setting: ClassVar[bool] = True
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


@dataclass(frozen=True)
class SplitChunk(Op):
    """Declared for eager migration (DESIGN §5.5); the planner does not emit it yet."""

    kind: ClassVar[str] = "split_chunk"
    ns: str
    middle: Mapping[str, Any]

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        return f"split the chunk of {self.ns} at {format_value(self.middle)}"

    def command(self) -> dict[str, Any]:
        return {"split": self.ns, "middle": dict(self.middle)}


@dataclass(frozen=True)
class MoveRange(Op):
    """Declared for eager migration (6.0+ moveRange, reference §4.2); not planned yet."""

    kind: ClassVar[str] = "move_range"
    ns: str
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    to_shard: str
    force_jumbo: bool = False  # apply --force-jumbo (reference §4.3)

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        return f"move {format_range(self.min, self.max)} of {self.ns} to {self.to_shard}"

    def command(self) -> dict[str, Any]:
        command: dict[str, Any] = {
            "moveRange": self.ns,
            "min": dict(self.min),
            "max": dict(self.max),
            "toShard": self.to_shard,
        }
        if self.force_jumbo:
            command["forceJumbo"] = True
        return command


@dataclass(frozen=True)
class MoveCollection(Op):
    """8.0's moveCollection: one unsharded collection to a shard of its pinned zone. It takes
    at least 5 minutes and blocks writes about 2 s at the end (manual, moveCollection)."""

    kind: ClassVar[str] = "move_collection"
    ns: str
    to_shard: str
    from_shard: str = ""  # where it lives now, informational
    zone: str = ""  # the zone it is pinned to, informational
    impact: Impact | None = None  # bytes to copy, when collStats answered

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        source = f" from {self.from_shard}" if self.from_shard else ""
        return f"move collection {self.ns}{source} to {self.to_shard} (zone {self.zone})"

    def command(self) -> dict[str, Any]:
        return {"moveCollection": self.ns, "toShard": self.to_shard}

    def inverse(self) -> Op | None:
        if not self.from_shard:
            return None
        return MoveCollection(self.ns, self.from_shard, self.to_shard, "")


@dataclass(frozen=True)
class RefineShardKey(Op):
    """refineCollectionShardKey (4.4+): suffix fields added to the live key. Moves no data;
    needs an index that starts with the new key, which zonectl never builds: without one
    the op is `blocked` and names the index to build."""

    kind: ClassVar[str] = "refine_shard_key"
    ns: str
    key: Mapping[str, Any]
    previous: Mapping[str, Any]
    blocked: str = ""  # why it cannot run yet (the index to build); "" when it can

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        return (
            f"refine the shard key of {self.ns} from {format_value(self.previous)} "
            f"to {format_value(self.key)}"
        )

    def command(self) -> dict[str, Any]:
        return {"refineCollectionShardKey": self.ns, "key": dict(self.key)}


@dataclass(frozen=True)
class ReshardCollection(Op):
    """reshardCollection (5.0+): the collection rewritten under `key` with `zones`, copying
    from every donor to every recipient at once; at least 5 minutes, writes blocked about
    2 s at the end (manual, reshardCollection). With `force_redistribution` (7.2+) the key
    stays and only the placement changes: the reshard route for a big zone change. Runs only
    with the policy's `reshard: true` (or `migrate: reshard`); else `blocked` says how."""

    kind: ClassVar[str] = "reshard_collection"
    ns: str
    key: Mapping[str, Any]
    previous: Mapping[str, Any]
    zones: tuple[Mapping[str, Any], ...] = ()  # {zone, min, max} in the new key
    force_redistribution: bool = False
    blocked: str = ""
    impact: Impact | None = None  # bytes to copy: the whole collection

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        if self.force_redistribution:
            return (
                f"reshard {self.ns} to the same key {format_value(self.key)} with "
                f"{len(self.zones)} zone range(s) (forceRedistribution)"
            )
        return (
            f"reshard {self.ns} from {format_value(self.previous)} to {format_value(self.key)} "
            f"with {len(self.zones)} zone range(s)"
        )

    def command(self) -> dict[str, Any]:
        command: dict[str, Any] = {
            "reshardCollection": self.ns,
            "key": dict(self.key),
            "zones": [dict(z) for z in self.zones],
        }
        if self.force_redistribution:
            command["forceRedistribution"] = True
        return command


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
RangeOp = AssignZoneRange | RemoveZoneRange
