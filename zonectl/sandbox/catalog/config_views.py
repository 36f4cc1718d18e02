"""`config.chunks` served from the chunk stores, so a million chunks stream as stored bytes.

`scan` answers the filters zonectl, mongosh and the jstests use on chunks itself, exactly
and in min order: `{uuid: X}` (5.0+; `{uuid: {$in: [...]}}` in (uuid, min) order) or
`{ns: X}` (4.4), optionally with `shard` equality
(or `$in`/`$nin` of shard names) and `$gt/$gte/$lt/$lte` (or equality) on `min`/`max` with
document operands; with the number of matches when known without iterating (a count a
config server answers from its {uuid, shard, min} index). Any other filter gets a superset
for the query engine's matcher (`exact=False`).
"""

from __future__ import annotations

import bisect
import uuid
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

import bson
from bson.raw_bson import DEFAULT_RAW_BSON_OPTIONS, RawBSONDocument

from zonectl.sandbox.catalog.keystring import encode
from zonectl.sandbox.catalog.store import Document, Scan
from zonectl.sandbox.errors import CommandError

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.chunks import ChunkStore
    from zonectl.sandbox.catalog.cluster import Cluster

_OPS = {"$gt", "$gte", "$lt", "$lte", "$eq"}
_BACKWARD_BATCH = 1000


class ChunksView:
    name = "config.chunks"

    def __init__(self, cluster: Cluster) -> None:
        self._cluster = cluster

    def scan(self, filter: Mapping[str, Any]) -> Scan:
        uuids = _uuid_list(filter.get("uuid"))
        if uuids is not None:
            return self._scan_many(uuids, filter)
        store, rest = self._pick_store(filter)
        if store is None:
            if rest is None:  # the filter names a collection that has no chunks
                by_uuid = "uuid" in filter and not _is_operator(filter["uuid"])
                return Scan([], exact=True, groups=("uuid" if by_uuid else "ns", []))
            return Scan(self._all_raw(), exact=not rest)
        named_by = "uuid" if store.form.by_uuid else "ns"  # the equality _pick_store took
        if _past_version(store, rest.get("lastmod")):
            # The {uuid: 1, lastmod: 1} index: nothing above the collection version, found
            # without a scan (a twin's capture asks whether a migration committed meanwhile).
            return Scan([], exact=True, size=0, groups=(named_by, []))
        exact = True
        shard = _shard_set(rest.pop("shard", None))
        if shard is False:
            exact, shard = False, None
        lo, hi = 0, len(store)
        for field in ("min", "max"):
            cond = rest.pop(field, None)
            if cond is None:
                continue
            bounds = _index_bounds(store, field, cond)
            if bounds is None:
                exact = False
                continue
            lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
        if rest:
            exact = False
        hi = max(lo, hi)
        size = hi - lo
        if shard is not None:
            # A COUNT_SCAN of the {uuid, shard, min} index per named shard.
            named = sum(store.count_on(s, lo, hi) for s in shard[0])
            size = named if shard[1] else size - named
        forward = _walk(store, lo, hi, shard, backward=False)
        back = _walk(store, lo, hi, shard, backward=True)
        # Every chunk of the store carries its uuid (ns): any one stands for the group.
        group = [(lambda: store.raw(0), size)] if exact else None
        return Scan(
            forward,
            exact,
            (("min", 1),),
            size=size,
            backward=back,
            groups=None if group is None else (named_by, group),
        )

    def _scan_many(self, uuids: list[Any], filter: Mapping[str, Any]) -> Scan:
        """`{uuid: {$in: [...]}, ...}`: the {uuid, min} index walked once per listed uuid,
        in uuid order (a server's multi-interval index scan), each with the rest of the
        filter; in (uuid, min) order."""
        ordered = sorted({encode(u): u for u in uuids}.items())
        scans = [self.scan({**filter, "uuid": u}) for _, u in ordered]
        sizes = [sc.size for sc in scans]
        backs = [sc.backward for sc in reversed(scans)]
        groups = [sc.groups for sc in scans]
        return Scan(
            (d for sc in scans for d in sc.docs),
            exact=all(sc.exact for sc in scans),
            ordered_by=(("uuid", 1), ("min", 1)),
            size=None if any(n is None for n in sizes) else sum(n or 0 for n in sizes),
            backward=(
                None if any(b is None for b in backs) else (d for b in backs for d in b or ())
            ),
            groups=(
                None
                if any(g is None or g[0] != "uuid" for g in groups)
                else ("uuid", [one for g in groups if g is not None for one in g[1]])
            ),
        )

    def _pick_store(self, filter: Mapping[str, Any]) -> tuple[ChunkStore | None, Any]:
        """The one store the filter's uuid/ns equality selects, and the other conditions.
        (None, None): it selects nothing; (None, {...}): no usable equality."""
        rest = dict(filter)
        for field in ("uuid", "ns"):
            if field in rest and not _is_operator(rest[field]):
                value = rest.pop(field)
                if field == "uuid":
                    store = self._cluster.store_by_uuid(value)
                    ok = store is not None and store.form.by_uuid
                else:
                    store = self._cluster.chunks(value) if isinstance(value, str) else None
                    ok = store is not None and not store.form.by_uuid
                if not ok or store is None:
                    return None, None
                return store, rest
        return None, rest

    def _all_raw(self) -> Iterator[RawBSONDocument]:
        for store in self._cluster.stores():
            yield from map(_RawChunk, store.raw_slice())

    # ------------------------------------------------------ Collection protocol
    def __iter__(self) -> Iterator[Document]:
        for store in self._cluster.stores():
            for raw in store.raw_slice():
                yield bson.decode(raw)

    def get(self, _id: Any) -> Document | None:
        key = encode(_id)
        for doc in self:
            if encode(doc["_id"]) == key:
                return doc
        return None

    def put(self, doc: Document) -> None:
        # Departure: a real config server accepts direct writes to config.chunks; the
        # sandbox derives chunks from its model, so it refuses them instead of corrupting it.
        raise CommandError.of(
            "IllegalOperation",
            "the sandbox does not accept direct writes to config.chunks; "
            "use split, mergeChunks, moveChunk or moveRange",
        )

    def remove(self, _id: Any) -> bool:
        self.put({})
        return False

    def __len__(self) -> int:
        return sum(len(s) for s in self._cluster.stores())


class _RawChunk(RawBSONDocument):
    """A RawBSONDocument over trusted bytes: skips the size re-validation of __init__
    (the store wrote these bytes with bson.encode), which is a third of the streaming cost."""

    __slots__ = ()

    def __init__(self, raw: bytes) -> None:
        self._RawBSONDocument__raw = raw
        self._RawBSONDocument__inflated_doc = None
        self._RawBSONDocument__codec_options = _RAW_OPTIONS


_RAW_OPTIONS = DEFAULT_RAW_BSON_OPTIONS


def _walk(
    store: ChunkStore,
    lo: int,
    hi: int,
    shard: tuple[frozenset[str], bool] | None,
    *,
    backward: bool,
) -> Iterator[RawBSONDocument]:
    """Chunks lo..hi-1 (of the wanted shards) in min order or its reverse: an index walk.
    What it yields is copied at the first read, under the command's lock (the cursor's
    snapshot); a count that never reads them copies nothing."""
    if shard is None and backward:
        # From the end, a batch at a time, copied as it is read (a server's backward
        # index scan under a yielding cursor): `sort({min: -1}).limit(1)` copies one batch.
        top = hi
        while top > lo:
            start = max(lo, top - _BACKWARD_BATCH)
            batch = store.raw_slice(start, top)
            batch.reverse()
            yield from map(_RawChunk, batch)
            top = start
        return
    if shard is None:
        raws = store.raw_slice(lo, hi)
    else:
        # As the {uuid, shard, min} index seeks each wanted shard's entries: the cost
        # follows the chunks found, not the range.
        wanted, keep = shard
        names = wanted if keep else set(store.chunk_counts()) - wanted
        found = sorted(i for name in names for i in store.positions_on(name, lo, hi))
        raws = [store.raw(i) for i in found]
    if backward:
        raws.reverse()
    yield from map(_RawChunk, raws)


def _shard_set(cond: Any) -> tuple[frozenset[str], bool] | Literal[False] | None:
    """A `shard` condition as (names, keep: True for equality/$in, False for $nin); None
    when absent; False when it is not one the view evaluates exactly."""
    if cond is None:
        return None
    if isinstance(cond, str):
        return frozenset((cond,)), True
    if _is_mapping(cond) and len(cond) == 1:
        ((op, names),) = cond.items()
        listed = isinstance(names, list | tuple) and all(isinstance(n, str) for n in names)
        if op in ("$in", "$nin") and listed:
            return frozenset(names), op == "$in"
    return False


def _uuid_list(cond: Any) -> list[Any] | None:
    """The uuids of a `{$in: [...]}` condition on uuid, else None."""
    listed = _is_mapping(cond) and list(cond) == ["$in"] and isinstance(cond["$in"], list)
    if listed and all(not isinstance(u, Mapping | list) for u in cond["$in"]):
        return list(cond["$in"])
    return None


def _past_version(store: ChunkStore, cond: Any) -> bool:
    """`{lastmod: {$gt: T}}` (or `$gte`) with T at or past the collection version."""
    if not _is_mapping(cond) or len(cond) != 1:
        return False
    ((op, value),) = cond.items()
    if not isinstance(value, bson.Timestamp) or op not in ("$gt", "$gte"):
        return False
    top = (store.version.time, store.version.inc)
    at = (value.time, value.inc)
    return top <= at if op == "$gt" else top < at


def _is_operator(value: Any) -> bool:
    return _is_mapping(value) and any(str(k).startswith("$") for k in value)


# Types of filter values that are never mappings: spared the ABC check (a uuid, a name).
_NOT_MAPPINGS = frozenset({str, int, float, bool, type(None), uuid.UUID, bson.Binary})


def _is_mapping(value: Any) -> bool:
    """isinstance(value, Mapping), quickly for the values filters hold."""
    return type(value) is dict or (type(value) not in _NOT_MAPPINGS and isinstance(value, Mapping))


def _index_bounds(store: ChunkStore, field: str, cond: Any) -> tuple[int, int] | None:
    """The index range [lo, hi) of chunks whose `field` satisfies `cond`, or None when the
    condition is not one this view evaluates exactly. Chunk i's max is chunk i+1's min,
    so both fields are monotonic in the index."""
    ops = dict(cond) if _is_operator(cond) else {"$eq": cond}
    if not set(ops) <= _OPS or not all(isinstance(v, Mapping) for v in ops.values()):
        return None  # query type bracketing with non-documents: leave it to the matcher
    keys = store.min_keys()
    n = len(keys)
    lo, hi = 0, n
    shift = 1 if field == "max" else 0  # max_i == min_{i+1}; the last max is the global max
    for op, operand in ops.items():
        k = encode(operand)
        if field == "max" and not keys:
            return 0, 0
        left = bisect.bisect_left(keys, k) - shift  # first i with field_i >= k
        right = bisect.bisect_right(keys, k) - shift  # first i with field_i > k
        if field == "max":
            # The last chunk's max is the global max: above every bound but MaxKey docs.
            last_max = encode(store.max_at(n - 1))
            left = _clamp_last(left, n, last_max >= k)
            right = _clamp_last(right, n, last_max > k)
        left, right = max(left, 0), max(right, 0)
        if op == "$gt":
            lo = max(lo, right)
        elif op == "$gte":
            lo = max(lo, left)
        elif op == "$lt":
            hi = min(hi, left)
        elif op == "$lte":
            hi = min(hi, right)
        else:
            lo, hi = max(lo, left), min(hi, right)
    return lo, hi


def _clamp_last(index: int, n: int, last_satisfies: bool) -> int:
    # For `max`, indices computed from mins cover chunks 0..n-2; chunk n-1 is decided by
    # comparing its max (the global max) directly.
    if index >= n - 1:
        return n - 1 if last_satisfies else n
    return index
