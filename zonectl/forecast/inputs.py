"""From what a cluster read gives (some chunks in key order, zone ranges) to the forecast's
input: each chunk cut at the zone bounds inside it (what the balancer or --migrate splits
first), each piece with its shard, its share of the chunk's bytes and its zone (the range
wholly containing it, reference §5.2)."""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from zonectl.model.keys import SortKey, sort_key

Range = tuple[Mapping[str, Any], Mapping[str, Any], str]  # min, max, zone


class Piece(NamedTuple):  # cheaper to build than a frozen dataclass: one per piece read
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    shard: str
    zone: str | None
    share: float  # of the chunk's bytes (an even share per piece: a guess)
    jumbo: bool


def make_pieces(chunks: Sequence[Mapping[str, Any]], ranges: Sequence[Range]) -> list[Piece]:
    """The chunks (min, max, shard, jumbo) cut at the range bounds strictly inside them,
    each piece with its zone (None: in no range). Each bound's key is computed once."""
    keyed = [(c, sort_key(c["min"]), sort_key(c["max"])) for c in chunks]
    range_keys = [(sort_key(r[0]), sort_key(r[1])) for r in ranges]
    return [p for p, _, _ in cut_keyed(keyed, ranges, range_keys)]


def cut_keyed(
    chunks: Sequence[tuple[Mapping[str, Any], SortKey, SortKey]],
    ranges: Sequence[Range],
    range_keys: Sequence[tuple[SortKey, SortKey]],
) -> list[tuple[Piece, SortKey, SortKey]]:
    """make_pieces of chunks whose min and max keys are given (chunk, min key, max key),
    with the ranges' keys (min key, max key each): each piece with its bounds' keys."""
    ordered = sorted(
        [(lo, hi, r[2]) for r, (lo, hi) in zip(ranges, range_keys, strict=True)],
        key=lambda k: k[0],
    )  # stable: equal mins keep their order
    mins = [k[0] for k in ordered]
    # Each distinct bound (by key; of equal ones the last given), in key order.
    by_key: dict[SortKey, Mapping[str, Any]] = {}
    for r, (lo_key, hi_key) in zip(ranges, range_keys, strict=True):
        by_key[lo_key] = r[0]
        by_key[hi_key] = r[1]
    keys = sorted(by_key)
    values = [by_key[k] for k in keys]
    out: list[tuple[Piece, SortKey, SortKey]] = []
    for c, lo, hi in chunks:
        start, stop = bisect.bisect_right(keys, lo), bisect.bisect_left(keys, hi)
        shard, jumbo = str(c["shard"]), bool(c.get("jumbo"))
        if start >= stop:  # no bound inside: the chunk whole
            i = bisect.bisect_right(mins, lo) - 1
            zone = ordered[i][2] if i >= 0 and hi <= ordered[i][1] else None
            out.append((Piece(c["min"], c["max"], shard, zone, 1.0, jumbo), lo, hi))
            continue
        edges = [c["min"], *values[start:stop], c["max"]]
        edge_keys = [lo, *keys[start:stop], hi]
        share = 1.0 / (len(edges) - 1)
        for j in range(len(edges) - 1):
            a, b = edge_keys[j], edge_keys[j + 1]
            i = bisect.bisect_right(mins, a) - 1
            zone = ordered[i][2] if i >= 0 and b <= ordered[i][1] else None
            out.append((Piece(edges[j], edges[j + 1], shard, zone, share, jumbo), a, b))
    return out
