"""Where each chunk of a collection sits, in key order, compactly (a few bytes a chunk): its
shard, whether it is outside its zone or straddles a boundary, the runs of chunks in one
zone. Filled by the status chunk walk (mongo/chunk_scan.py), drawn by render/html/strip.py."""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

IN_PLACE = 0  # in its zone, or in no zone
OUTSIDE = 1  # wholly in a range of zone Z, on a shard that does not carry Z
STRADDLING = 2  # a range bound falls strictly inside it: in no zone until split


@dataclass(frozen=True)
class ZoneRun:
    """Consecutive chunks [start, next run's start) with the same zone (None: no zone)."""

    start: int
    zone: str | None
    min: Mapping[str, Any]  # the first chunk's min: where the run begins in the key space


@dataclass
class ChunkLayout:
    shards: list[str] = field(default_factory=list)  # index -> shard name
    shard_of: array[int] = field(default_factory=lambda: array("H"))  # chunk -> shard index
    kind: bytearray = field(default_factory=bytearray)  # chunk -> IN_PLACE/OUTSIDE/STRADDLING
    runs: list[ZoneRun] = field(default_factory=list)
    last_max: Mapping[str, Any] | None = None  # the last chunk's max
    _index: dict[str, int] = field(default_factory=dict)

    def add(self, shard: str, kind: int, zone: str | None, cmin: Mapping[str, Any]) -> None:
        i = self._index.get(shard)
        if i is None:
            i = self._index[shard] = len(self.shards)
            self.shards.append(shard)
        n = len(self.kind)
        self.shard_of.append(i)
        self.kind.append(kind)
        if not self.runs or self.runs[-1].zone != zone:
            self.runs.append(ZoneRun(n, zone, cmin))

    @property
    def chunks(self) -> int:
        return len(self.kind)

    def run_end(self, r: int) -> int:
        return self.runs[r + 1].start if r + 1 < len(self.runs) else self.chunks

    def zone_chunks(self) -> dict[tuple[str, str | None], int]:
        """(shard, zone) -> chunks, straddling chunks under zone None."""
        out: dict[tuple[str, str | None], int] = {}
        for r, run in enumerate(self.runs):
            seg = self.shard_of[run.start : self.run_end(r)]
            for i, shard in enumerate(self.shards):
                n = seg.count(i)
                if n:
                    out[(shard, run.zone)] = out.get((shard, run.zone), 0) + n
        return out
