"""A collection's chunks must cover MinKey to MaxKey with no gap and no overlap, each with
min < max: a twin edited by hand that breaks this is refused with the chunk named."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import bson
from bson import json_util

from zonectl.model.keys import sort_key
from zonectl.twin.chunkfile import CollectionChunks
from zonectl.twin.errors import TwinError


def _show(bound: Mapping[str, Any]) -> str:
    return json_util.dumps(bound)


def check(
    chunks: CollectionChunks,
    key: Mapping[str, Any],
    source: str,
    order: Sequence[Any] | None = None,
) -> None:
    """Raise TwinError naming the first chunk that leaves a gap, overlaps or is empty.
    `order`: the mins' order keys when the caller has them (the sandbox's keystrings),
    else `sort_key` is computed here."""
    ns = chunks.ns
    if not len(chunks):
        raise TwinError(f"{source}: {ns}: no chunks (a sharded collection has at least one)")
    fields = list(key)

    def where(i: int) -> str:
        lo, hi = _show(chunks.mins[i]), _show(chunks.maxs[i])
        return f"{source}: {ns} chunk {i} {lo} -> {hi} on {chunks.shards[i]}"

    for i, (lo, hi) in enumerate(zip(chunks.mins, chunks.maxs, strict=True)):
        if list(lo) != fields or list(hi) != fields:
            raise TwinError(f"{where(i)}: bounds must have exactly the key's fields {fields}")
    # Contiguous (max[i-1] is min[i]: the same bytes, as a split writes them, else the same
    # value in BSON order) and ascending mins, so min < max too: one sort key per chunk.
    keys = order if order is not None else [sort_key(m) for m in chunks.mins]
    previous = keys[0]
    for i in range(1, len(chunks)):
        low = keys[i]
        if low <= previous:
            raise TwinError(f"{where(i)}: min is not above the chunk before it: chunks overlap")
        before = chunks.maxs[i - 1]
        if bson.encode(before) != bson.encode(chunks.mins[i]):
            end, start = sort_key(before), sort_key(chunks.mins[i])
            if end != start:
                what = "overlaps" if end > start else "leaves a gap after"
                raise TwinError(
                    f"{where(i)}: {what} the chunk before it (which ends at {_show(before)})"
                )
        previous = low
    if sort_key(chunks.mins[-1]) >= sort_key(chunks.maxs[-1]):
        raise TwinError(f"{where(len(chunks) - 1)}: min is not below max")
    first, last = chunks.mins[0], chunks.maxs[-1]
    if any(not isinstance(v, bson.MinKey) for v in first.values()):
        raise TwinError(f"{where(0)}: a gap below it: the first chunk must start at MinKey")
    if any(not isinstance(v, bson.MaxKey) for v in last.values()):
        raise TwinError(f"{where(len(chunks) - 1)}: a gap above it: the last must end at MaxKey")
