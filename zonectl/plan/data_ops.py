"""The ops that move or rewrite data rather than metadata: a chunk split, a range move
(eager migration), moveCollection (8.0+), and the shard-key changes (refine, reshard)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zonectl.model.keys import format_value
from zonectl.plan.op_base import (
    Format,
    Impact,
    KeyChange,
    Op,
    RangeChange,
    Relocation,
    format_bytes,
    format_range,
    plural,
)


@dataclass(frozen=True)
class SplitChunk(Op, kind="split_chunk", counts_as="", phase="last"):
    """Declared for eager migration (ARCHITECTURE.md, "The journey of apply --migrate"); the
    planner does not emit it yet."""

    ns: str
    middle: Mapping[str, Any]

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        return f"split the chunk of {self.ns} at {format_value(self.middle)}"

    def line(self) -> str:
        return f"split at {format_value(self.middle)}"

    def command(self) -> dict[str, Any]:
        return {"split": self.ns, "middle": dict(self.middle)}


@dataclass(frozen=True)
class MoveRange(Op, kind="move_range", counts_as="", phase="last"):
    """Declared for eager migration (6.0+ moveRange, reference §4.2); not planned yet."""

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

    def line(self) -> str:
        return f"move {format_range(self.min, self.max)} to {self.to_shard}"

    def callout(self, code: Format, prose: Format) -> str:
        return f"{code(self.ns)} range moves to {code(self.to_shard)} now"

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


def _copy(impact: Impact | None) -> str:
    return f", ~{format_bytes(impact.bytes)} to copy" if impact is not None else ""


@dataclass(frozen=True)
class MoveCollection(
    Op, kind="move_collection", counts_as="collection_moved", phase="relocate", moves="copies"
):
    """8.0's moveCollection: one unsharded collection to a shard of its pinned zone. It takes
    at least 5 minutes and blocks writes about 2 s at the end (manual, moveCollection)."""

    ns: str
    to_shard: str
    from_shard: str = ""  # where it lives now, informational
    zone: str = ""  # the zone it is pinned to, informational
    impact: Impact | None = None  # bytes to copy, when collStats answered

    @property
    def namespace(self) -> str:
        return self.ns

    @property
    def placed_in(self) -> str:
        return self.zone

    def relocation(self) -> Relocation:
        return Relocation(self.ns, self.from_shard, self.to_shard, self.zone)

    def describe(self) -> str:
        source = f" from {self.from_shard}" if self.from_shard else ""
        return f"move collection {self.ns}{source} to {self.to_shard} ({self._why()})"

    def line(self) -> str:
        source = f" from {self.from_shard}" if self.from_shard else ""
        return (
            f"moveCollection{source} to {self.to_shard} "
            f"({self._why()}{_copy(self.impact)}; 5 min at least)"
        )

    def _why(self) -> str:
        """Its pinned zone, or (zone "") the shard being removed it leaves."""
        return f"zone {self.zone}" if self.zone else f"shard {self.from_shard} is removed"

    def callout(self, code: Format, prose: Format) -> str:
        return (
            f"{code(self.ns)} moves to {code(self.to_shard)} with moveCollection: at least "
            "5 minutes, writes blocked about 2 s at the end"
        )

    def command(self) -> dict[str, Any]:
        return {"moveCollection": self.ns, "toShard": self.to_shard}

    def inverse(self) -> Op | None:
        if not self.from_shard:
            return None
        return MoveCollection(self.ns, self.from_shard, self.to_shard, "")


@dataclass(frozen=True)
class ShardKeyOp(
    Op,
    counts_as="key_change",
    phase="key",  # before the ranges: a refine rewrites the bounds they remove
    apply_only=True,  # a cron rotate never changes a shard key
):
    """A shard-key change of one collection: `previous` is the live key, `key` the new one."""

    ns: str
    key: Mapping[str, Any]
    previous: Mapping[str, Any]

    @property
    def namespace(self) -> str:
        return self.ns

    def key_change(self) -> KeyChange:
        # A resharding copies every document (moves "copies"); a refine moves none.
        return KeyChange(self.ns, self.key, self.previous, reshards=self.moves == "copies")


@dataclass(frozen=True)
class RefineShardKey(ShardKeyOp, kind="refine_shard_key"):
    """refineCollectionShardKey (4.4+): suffix fields added to the live key. Moves no data;
    needs an index that starts with the new key, which zonectl never builds: without one
    the op is `blocked` and names the index to build."""

    blocked: str = ""  # why it cannot run yet (the index to build); "" when it can

    def describe(self) -> str:
        return (
            f"refine the shard key of {self.ns} from {format_value(self.previous)} "
            f"to {format_value(self.key)}"
        )

    def line(self) -> str:
        return (
            f"shard key {format_value(self.previous)} -> {format_value(self.key)} "
            "(refine, no data moves)"
        )

    def callout(self, code: Format, prose: Format) -> str:
        key = code(format_value(self.key))
        text = f"{code(self.ns)} shard key refined to {key}; it cannot be undone"
        return text + (f" - **blocked**: {prose(self.blocked)}" if self.blocked else "")

    def command(self) -> dict[str, Any]:
        return {"refineCollectionShardKey": self.ns, "key": dict(self.key)}


@dataclass(frozen=True)
class ReshardCollection(
    ShardKeyOp,
    kind="reshard_collection",
    moves="copies",
    apply_only=True,  # a cron rotate never starts an hours-long resharding
):
    """reshardCollection (5.0+): the collection rewritten under `key` with `zones`, copying
    from every donor to every recipient at once; at least 5 minutes, writes blocked about
    2 s at the end (manual, reshardCollection). With `force_redistribution` (7.2+) the key
    stays and only the placement changes: the reshard route for a big zone change. Runs only
    with the policy's `reshard: true` (or `migrate: reshard`); else `blocked` says how."""

    zones: tuple[Mapping[str, Any], ...] = ()  # {zone, min, max} in the new key
    force_redistribution: bool = False
    blocked: str = ""
    impact: Impact | None = None  # bytes to copy: the whole collection

    def ranges_after(self) -> tuple[RangeChange, ...] | None:
        """The reshard route (the same key): the zones it carries are the namespace's ranges
        after it."""
        if not self.force_redistribution:
            return None
        return tuple(
            RangeChange(self.ns, str(z["zone"]), dict(z["min"]), dict(z["max"]), adds=True)
            for z in self.zones
        )

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

    def line(self) -> str:
        zones = plural(len(self.zones), "zone range")
        key = format_value(self.key)
        if self.force_redistribution:
            head = f"reshard to the same key {key} with {zones}, forceRedistribution"
        else:
            head = f"shard key {format_value(self.previous)} -> {key} by resharding, {zones}"
        return f"{head} (5 min at least, writes blocked ~2 s{_copy(self.impact)})"

    def callout(self, code: Format, prose: Format) -> str:
        return (
            f"{code(self.ns)} is resharded (every document copied; at least 5 minutes, writes "
            "blocked about 2 s at the end; one resharding at a time)"
        ) + (f" - **blocked**: {prose(self.blocked)}" if self.blocked else "")

    def command(self) -> dict[str, Any]:
        command: dict[str, Any] = {
            "reshardCollection": self.ns,
            "key": dict(self.key),
            "zones": [dict(z) for z in self.zones],
        }
        if self.force_redistribution:
            command["forceRedistribution"] = True
        return command
