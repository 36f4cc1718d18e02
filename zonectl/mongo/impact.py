"""Targeted chunk reads for impact estimates: per changed range, an indexed count of its
chunks, the ones off its zone's shards and the one straddling its min, by `uuid` (5.0+) or
`ns` (4.4), reference §2.3; their bytes from zonectl.mongo.chunk_sizes, as the forecast's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from zonectl.model.chunk_match import Chunks, kept_fields
from zonectl.model.cluster import ClusterState
from zonectl.model.keys import sort_key
from zonectl.mongo.chunk_batch import ChunkBatch, straddling, straddling_in
from zonectl.mongo.chunk_sizes import ChunkSizes
from zonectl.mongo.connect import Connection
from zonectl.plan.impact import SizeOf, make_impacts, zone_shards_after
from zonectl.plan.op_base import RangeChange
from zonectl.plan.ops import Impact
from zonectl.plan.plan import Plan

_FIELDS = {"_id": 0, "min": 1, "max": 1, "shard": 1, "estimatedDataSizeBytes": 1}
_KEEP = kept_fields(_FIELDS)


class _Change(NamedTuple):
    at: int  # the op's place in the plan
    change: RangeChange
    migrates: bool  # an assignment: chunks outside its zone's shards move


def _changes(plan: Plan) -> list[_Change]:
    """The plan's range ops, each asked for its range once."""
    return [
        _Change(i, c, op.moves == "migrates")
        for i, op in enumerate(plan.ops)
        if (c := op.range_change()) is not None
    ]


def _chunk_filters(actual: ClusterState, namespaces: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Each sharded namespace's equality on config.chunks: {uuid} on 5.0+, {ns} on 4.4 or
    without a uuid (reference §2.3); unsharded ones are left out (no chunks to move)."""
    major = int(actual.version.split(".")[0]) if actual.version[:1].isdigit() else 7
    out: dict[str, dict[str, Any]] = {}
    for ns in namespaces:
        coll = actual.collections.get(ns)
        if coll is not None and ns not in out:
            out[ns] = {"uuid": coll.uuid} if major >= 5 and coll.uuid is not None else {"ns": ns}
    return out


def read_impact_chunks(
    batch: ChunkBatch, actual: ClusterState, plan: Plan
) -> tuple[dict[int, list[Mapping[str, Any]]], dict[int, int]]:
    """Per range op, the chunks that decide its impact, by indexed queries only: the one
    chunk that starts before the range and may cross into it, and for an assignment the
    chunks inside it on a shard outside its zone ({uuid, shard, min} index). Also per op
    how many chunks inside it were counted (the {uuid, min} index) but not read: a range
    that covers most of a collection costs a count, not its documents. All sent together
    (ChunkBatch.replay): one aggregate for every op of the plan. A namespace read whole is
    asked from its table (ChunkBatch.table), taken once per pass."""
    return _read_impact_chunks(batch, actual, plan, _changes(plan))


def _read_impact_chunks(
    batch: ChunkBatch, actual: ClusterState, plan: Plan, changes: Sequence[_Change]
) -> tuple[dict[int, list[Mapping[str, Any]]], dict[int, int]]:
    zones = zone_shards_after(plan, actual)
    holders = {zone: sorted(shards) for zone, shards in zones.items()}
    bases = _chunk_filters(actual, (c.change.ns for c in changes))
    batch.prefetch(bases.values())

    def read() -> tuple[dict[int, list[Mapping[str, Any]]], dict[int, int]]:
        found: dict[int, list[Mapping[str, Any]]] = {}
        unread: dict[int, int] = {}
        tables: dict[str, Chunks | None] = {}  # each namespace looked up once per pass
        for index, change, migrates in changes:
            base = bases.get(change.ns)
            if base is None:
                continue
            if change.ns in tables:
                table = tables[change.ns]
            else:
                table = tables[change.ns] = batch.table(base) if _KEEP is not None else None
            held = holders.get(change.zone, []) if migrates else None
            if table is not None and _KEEP is not None:
                found[index], unread[index] = _from_table(table, _KEEP, change, held)
            else:
                found[index], unread[index] = _asked(batch, base, change, held)
        return found, unread

    return batch.replay(read)


def _from_table(
    table: Chunks, keep: frozenset[str], change: RangeChange, held: list[str] | None
) -> tuple[list[Mapping[str, Any]], int]:
    """`_asked`'s answers from the namespace's table (the same documents, in the same order)."""
    lo, hi = sort_key(change.min), sort_key(change.max)
    off = [] if held is None else table.docs(table.places_in(lo, hi, off=held), keep)
    straddler = straddling_in(table, change.min, lo, keep, inclusive=True)
    return [*straddler, *off], table.count_in(lo, hi) - len(off)


def _asked(
    batch: ChunkBatch, base: Mapping[str, Any], change: RangeChange, held: list[str] | None
) -> tuple[list[Mapping[str, Any]], int]:
    """The chunk straddling the range's min and, for an assignment (`held`: its zone's
    shards), those inside it off them; and how many inside it were counted, not read."""
    inside = {**base, "min": {"$gte": change.min, "$lt": change.max}}
    total = batch.count(inside)
    off: list[Mapping[str, Any]] = []
    if held is not None:
        off = list(batch.find({**inside, "shard": {"$nin": held}}, _FIELDS))
    return [*straddling(batch, base, change.min, _FIELDS, inclusive=True), *off], total - len(off)


def read_impacts(
    conn: Connection, actual: ClusterState, plan: Plan, sizes: ChunkSizes | None = None
) -> dict[int, Impact]:
    """Impact per range op; bytes from `sizes`, the one size source (the plan passes the
    forecast's, so both say the same bytes for the same chunks)."""
    sizes = sizes if sizes is not None else ChunkSizes(conn)
    changes = _changes(plan)
    sizes.read_collections([c.change.ns for c in changes])
    shards = [s.id for s in actual.shards]
    names = sorted({c.change.ns for c in changes if c.migrates})
    counted = [ns for ns in names if sizes.chunk_filter(ns) is not None]
    sizes.batch.prefetch(b for ns in counted if (b := sizes.chunk_filter(ns)) is not None)

    def read() -> tuple[dict[int, list[Mapping[str, Any]]], dict[int, int]]:
        for ns in counted:  # the estimates' per-shard counts, in the same aggregate
            sizes.shard_counts(ns, shards)
        return _read_impact_chunks(sizes.batch, actual, plan, changes)

    chunks, unread = sizes.batch.replay(read)

    # (ns, shard) -> the estimate of a whole chunk: the same for each of its chunks once the
    # counts are read (asked once, its reads and tally as the first asking made them)
    estimates: dict[tuple[str, str], int] = {}

    def size_of(ns: str) -> SizeOf:
        def size(lo: Mapping[str, Any], hi: Mapping[str, Any], shard: str, share: float) -> int:
            (measured,) = sizes.measure(ns, [(lo, hi)])
            if measured is not None:
                return measured
            whole = estimates.get((ns, shard))
            if whole is None:
                whole = estimates[ns, shard] = sizes.estimate(ns, shard, shards)[0]
            return int(whole * share)

        return size

    # every byte comes from `size_of`: no maximum chunk size is needed (or read) here
    return make_impacts(plan, actual, chunks, {}, size_of, unread)
