"""From what a cluster read gives (some chunks in key order, zone ranges) to the forecast's
input: each chunk cut at the zone bounds inside it (what the balancer or --migrate splits
first), each piece with its shard, its share of the chunk's bytes and its zone (the range
wholly containing it, reference §5.2)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zonectl.model.keys import compare, sort_key

Range = tuple[Mapping[str, Any], Mapping[str, Any], str]  # min, max, zone


@dataclass(frozen=True)
class Piece:
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    shard: str
    zone: str | None
    share: float  # of the chunk's bytes (an even share per piece: a guess)
    jumbo: bool


def make_pieces(chunks: Sequence[Mapping[str, Any]], ranges: Sequence[Range]) -> list[Piece]:
    """The chunks (min, max, shard, jumbo) cut at the range bounds strictly inside them,
    each piece with its zone (None: in no range)."""
    ordered = sorted(ranges, key=lambda r: sort_key(r[0]))
    mins = [sort_key(r[0]) for r in ordered]
    bounds = sorted({sort_key(b): b for r in ranges for b in (r[0], r[1])}.items())
    keys = [k for k, _ in bounds]
    out: list[Piece] = []
    for c in chunks:
        lo, hi = sort_key(c["min"]), sort_key(c["max"])
        inside = [
            b for _, b in bounds[bisect.bisect_right(keys, lo) : bisect.bisect_left(keys, hi)]
        ]
        edges = [c["min"], *inside, c["max"]]
        share = 1.0 / (len(edges) - 1)
        for a, b in itertools.pairwise(edges):
            i = bisect.bisect_right(mins, sort_key(a)) - 1
            zone = ordered[i][2] if i >= 0 and compare(b, ordered[i][1]) <= 0 else None
            out.append(Piece(a, b, str(c["shard"]), zone, share, bool(c.get("jumbo"))))
    return out
