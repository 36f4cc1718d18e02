"""Op classes apply creates itself for eager migration (never planned, never saved):
moveChunk by exact bounds for servers before 6.0 (reference §4.1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from zonectl.plan.ops import Op, format_range


@dataclass(frozen=True)
class MoveChunk(Op):
    """moveChunk with `bounds` = exactly one chunk's [min, max); 5.0 checks the zone of the
    destination itself (IllegalOperation when it lacks the chunk's zone)."""

    # Set in the body, not as the `kind=` class keyword: not registered in op_base.KINDS,
    # so no saved plan loads one.
    kind: ClassVar[str] = "move_chunk"
    ns: str
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    to_shard: str
    force_jumbo: bool = False

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        return f"move chunk {format_range(self.min, self.max)} of {self.ns} to {self.to_shard}"

    def command(self) -> dict[str, Any]:
        command: dict[str, Any] = {
            "moveChunk": self.ns,
            "bounds": [dict(self.min), dict(self.max)],
            "to": self.to_shard,
        }
        if self.force_jumbo:
            command["forceJumbo"] = True
        return command
