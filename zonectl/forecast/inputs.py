"""From what a cluster read gives (chunks in key order, zone ranges, bytes each shard owns)
to the forecast's input: each chunk's shard, estimated bytes and zone (the range wholly
containing it, reference §5.2; a chunk straddling a boundary is split first, so its pieces
are counted by where they fall)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.model.keys import compare, sort_key

Range = tuple[Mapping[str, Any], Mapping[str, Any], str]  # min, max, zone


def make_namespace_chunks(
    ns: str,
    chunks: Sequence[Mapping[str, Any]],
    ranges: Sequence[Range],
    shard_bytes: Mapping[str, int] | None,
    default_bytes: int,
) -> NamespaceChunks:
    """Chunk sizes: `estimatedDataSizeBytes`, else the shard's owned bytes over its chunk
    count, else `default_bytes` (zonectl.apply.migrate's estimate, the same numbers)."""
    ordered = sorted(ranges, key=lambda r: sort_key(r[0]))
    mins = [sort_key(r[0]) for r in ordered]
    pieces = _split_at_bounds(chunks, ordered)
    counts: dict[str, int] = {}
    for c in chunks:
        counts[str(c["shard"])] = counts.get(str(c["shard"]), 0) + 1
    out = NamespaceChunks(ns, [], [], [])
    for c, share in pieces:
        shard = str(c["shard"])
        if c.get("estimatedDataSizeBytes") is not None:
            size = int(c["estimatedDataSizeBytes"])
        elif shard_bytes is not None:
            size = shard_bytes.get(shard, 0) // max(counts.get(shard, 1), 1)
        else:
            size = default_bytes
        i = bisect.bisect_right(mins, sort_key(c["min"])) - 1
        zone = None
        if i >= 0 and compare(c["max"], ordered[i][1]) <= 0:
            zone = ordered[i][2]
        if c.get("jumbo"):
            out.jumbo.add(len(out.shards))
        out.bounds.append((c["min"], c["max"]))
        out.shards.append(shard)
        out.sizes.append(int(size * share))
        out.zones.append(zone)
    return out


def _split_at_bounds(
    chunks: Sequence[Mapping[str, Any]], ranges: Sequence[Range]
) -> list[tuple[Mapping[str, Any], float]]:
    """Chunks cut at zone bounds inside them (what the balancer or --migrate splits first);
    each piece with its share of the chunk's bytes (an even share per piece: a guess)."""
    bounds = sorted({sort_key(b): b for r in ranges for b in (r[0], r[1])}.items())
    keys = [k for k, _ in bounds]
    out: list[tuple[Mapping[str, Any], float]] = []
    for c in chunks:
        lo, hi = sort_key(c["min"]), sort_key(c["max"])
        inside = [
            b for k, b in bounds[bisect.bisect_right(keys, lo) : bisect.bisect_left(keys, hi)]
        ]
        if not inside:
            out.append((c, 1.0))
            continue
        edges = [c["min"], *inside, c["max"]]
        share = 1.0 / (len(edges) - 1)
        for a, b in itertools.pairwise(edges):
            out.append(({**c, "min": a, "max": b}, share))
    return out
