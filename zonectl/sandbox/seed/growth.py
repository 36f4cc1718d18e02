"""Simulated inserts into an ascending shard key: writes land in the top chunk
[last, MaxKey) and it is split at the current key, both pieces staying on its shard."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from bson import Int64, ObjectId

from zonectl.sandbox.bounds import pad_bound
from zonectl.sandbox.keyorder import compare

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def instants(start: dt.datetime, stop: dt.datetime, every: dt.timedelta) -> Iterator[dt.datetime]:
    """start + every, start + 2*every, ... up to and including stop."""
    t = start + every
    while t <= stop:
        yield t
        t += every


def grow(
    sandbox: Sandbox,
    ns: str,
    at: Iterable[dt.datetime],
    *,
    bytes_per_step: int = 16 * 1024 * 1024,
    docs_per_step: int = 50_000,
) -> int:
    """For each instant t: the writes since the previous split go to the top chunk, which
    is then split at the key value of t. The lower piece keeps that data, the upper one
    starts empty. Returns the number of chunks added.

    This is where a real cluster puts new chunks: every insert of an ascending key targets
    the chunk owning MaxKey, and the split that follows (the 5.x auto-splitter, or the
    6.0+ balancer splitting before it moves a range) leaves both pieces on that shard. The
    key value of t has the type of the top chunk's bounds: a date, the smallest ObjectId
    of that second, or epoch seconds (int) / milliseconds (Int64).
    """
    cluster = sandbox.cluster
    added = 0
    with sandbox.lock:
        store = cluster.chunks(ns)
        key = cluster.key_pattern(ns)
        if store is None or key is None:
            raise ValueError(f"{ns} is not sharded")
        field = next(iter(key))
        for t in at:
            top = len(store) - 1
            lo = store.min_at(top)
            point = pad_bound({field: _key_value(lo[field], t)}, key)
            store.set_size(
                top, store.size_at(top) + bytes_per_step, store.count_at(top) + docs_per_step
            )
            if compare(point, lo) <= 0:
                continue  # not past the top chunk's min yet: the data just accumulates
            size, count = store.size_at(top), store.count_at(top)
            sandbox.balancer.split_chunk(ns, top, [point])
            store.set_size(top, size, count)
            store.set_size(top + 1, 0, 0)
            added += 1
    return added


def _key_value(like: Any, t: dt.datetime) -> Any:
    """The key value of instant `t`, of the same BSON type as `like`."""
    utc = t.astimezone(dt.UTC)
    if isinstance(like, ObjectId):
        return ObjectId.from_datetime(utc)
    if isinstance(like, Int64):
        return Int64((utc - _EPOCH) // dt.timedelta(milliseconds=1))
    if isinstance(like, int) and not isinstance(like, bool):
        return (utc - _EPOCH) // dt.timedelta(seconds=1)
    if isinstance(like, dt.datetime):
        return utc.replace(microsecond=utc.microsecond // 1000 * 1000)
    raise ValueError(
        f"cannot grow a key whose top chunk starts at {like!r}: "
        "split it once at a date, ObjectId or epoch value first"
    )
