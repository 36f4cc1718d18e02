"""Eager migration (ARCHITECTURE.md, "The journey of apply --migrate"): split chunks
straddling zone boundaries, then move each out-of-zone chunk to a shard of its zone, while
balancing is paused; `parallel` runs the moves several at a time over disjoint shard pairs
(zonectl.forecast.eager.Dispatcher).

One move per chunk, by design, on every server version (5.0-8.0). A run of contiguous
out-of-zone chunks could be merged (mergeChunks) and moved with one moveRange, since
moveRange with both bounds must lie inside one chunk (reference §4.2). But the donor
refuses a range holding more documents than maxChunkSize/avgObjSize +30% (ChunkTooBig,
§4.3) and config.chunks does not carry sizes, so merging full chunks would trade N
migrations that succeed for one that fails.
moveRange (6.0+) or moveChunk (5.0) therefore names exactly one chunk; `runs` is reported
next to the command count so the cost of that choice is visible. A moveRange spanning
several chunks is not an option either: undocumented before 8.3, error 11089203 from 8.3
(§4.2). In time the choice costs little: a merged run saves only the per-migration fixed part,
and one big move would keep a donor busy that several parallel moves could share.

Bytes per chunk: config.chunks has no sizes (only `estimatedDataSizeBytes` on some 6.x/7.x
chunks, §2.3), so a chunk is estimated as its shard's owned bytes of the namespace
(`$shardedDataDistribution`, 6.0.3+) divided by that shard's chunk count, else half the
maximum chunk size (chunks split when they reach the maximum).
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from zonectl.forecast.eager import PendingMove
from zonectl.model.cluster import LiveRange
from zonectl.model.keys import compare, sort_key
from zonectl.plan.failures import OpFailedError
from zonectl.plan.moves import MoveChunk
from zonectl.plan.ops import MoveRange, Op, SplitChunk

Chunk = Mapping[str, Any]
CHUNK_TOO_BIG = 153
CONFLICTING_OPERATION = 117
# The same code when the collection disallows migrations (setAllowMigrations false, a
# resharding, a drop): not a shard that is busy for a moment, so not retried
# (mongo:src/mongo/db/s/migration_source_manager.cpp).
UNDERGOING_CHANGES = "Collection is undergoing changes"
CONFLICT_RETRIES = 5
CONFLICT_BACKOFF_S = 0.2


class MigrationProgress(Protocol):
    def start(self, ns: str, chunks: int, total_bytes: int = 0) -> None: ...
    def advance(self, chunks: int, nbytes: int = 0) -> None: ...
    def note(self, text: str) -> None: ...
    def finish(self) -> None: ...


@dataclass(frozen=True)
class MoveSet:
    moves: tuple[Op, ...]
    violating: int  # out-of-zone chunks
    runs: int  # maximal runs of contiguous out-of-zone chunks of one zone range
    jumbo: tuple[str, ...] = ()  # flagged jumbo, skipped without --force-jumbo
    stranded: tuple[str, ...] = ()  # zones no shard carries: nowhere to move to
    pending: tuple[PendingMove, ...] = ()  # the moves with sizes, for the parallel runner
    loads: Mapping[str, int] = field(default_factory=dict)  # bytes of the ns per shard

    @property
    def bytes(self) -> int:
        return sum(m.bytes for m in self.pending)


@dataclass
class MigrationResult:
    ns: str
    splits: int = 0
    violating: int = 0
    runs: int = 0
    commands: int = 0
    moved: int = 0
    skipped: list[str] = field(default_factory=list)
    left: int = 0  # not attempted: the budget ran out
    failed: list[str] = field(default_factory=list)  # per chunk: the server's error
    reasons: list[str] = field(default_factory=list)  # the distinct errors, in order
    bytes_moved: int = 0


def _ranges_index(ranges: Sequence[LiveRange]) -> tuple[list[LiveRange], list[Any]]:
    ordered = sorted(ranges, key=lambda r: sort_key(r.min))
    return ordered, [sort_key(r.min) for r in ordered]


def zone_of(chunk: Chunk, ordered: list[LiveRange], mins: list[Any]) -> LiveRange | None:
    """The range wholly containing the chunk, else None (reference §5.2)."""
    i = bisect.bisect_right(mins, sort_key(chunk["min"])) - 1
    if i < 0:
        return None
    r = ordered[i]
    return r if compare(chunk["max"], r.max) <= 0 else None


def make_splits(ns: str, chunks: Sequence[Chunk], ranges: Sequence[LiveRange]) -> list[SplitChunk]:
    """`split` at each zone bound lying strictly inside a chunk (what the balancer's round
    would do first, §5.1 step 2), ascending."""
    mins = [sort_key(c["min"]) for c in chunks]
    points: dict[Any, Mapping[str, Any]] = {}
    for r in ranges:
        for bound in (r.min, r.max):
            i = bisect.bisect_right(mins, sort_key(bound)) - 1
            if i < 0:
                continue
            c = chunks[i]
            if compare(c["min"], bound) < 0 and compare(bound, c["max"]) < 0:
                points.setdefault(sort_key(bound), bound)
    return [SplitChunk(ns, dict(points[k])) for k in sorted(points)]


def split_locally(chunks: Sequence[Chunk], splits: Sequence[SplitChunk]) -> list[dict[str, Any]]:
    """The chunks as they will be after `splits` (for --dry-run, which sends nothing)."""
    out = [dict(c) for c in chunks]
    for s in splits:
        mins = [sort_key(c["min"]) for c in out]
        i = bisect.bisect_right(mins, sort_key(s.middle)) - 1
        c = out[i]
        out[i : i + 1] = [{**c, "max": dict(s.middle)}, {**c, "min": dict(s.middle)}]
    return out


def estimate_sizes(
    chunks: Sequence[Chunk], shard_bytes: Mapping[str, int] | None, default: int
) -> list[int]:
    """Bytes per chunk: `estimatedDataSizeBytes` when present, else the shard's owned bytes
    over its chunk count, else `default` (see the module docstring)."""
    counts: dict[str, int] = {}
    for c in chunks:
        counts[str(c["shard"])] = counts.get(str(c["shard"]), 0) + 1
    out = []
    for c in chunks:
        shard = str(c["shard"])
        if c.get("estimatedDataSizeBytes") is not None:
            out.append(int(c["estimatedDataSizeBytes"]))
        elif shard_bytes is not None:
            out.append(shard_bytes.get(shard, 0) // max(counts[shard], 1))
        else:
            out.append(default)
    return out


def make_moves(
    ns: str,
    chunks: Sequence[Chunk],
    ranges: Sequence[LiveRange],
    shard_zones: Mapping[str, Sequence[str]],
    *,
    major: int,
    force_jumbo: bool = False,
    sizes: Sequence[int] | None = None,
    draining: Collection[str] = frozenset(),
    donor: str | None = None,
) -> MoveSet:
    """One move per out-of-zone chunk, each to the zone's shard holding the fewest chunks
    of `ns` at that point (ties by name), so a zone of several shards fills evenly. Every
    chunk on a `draining` shard moves: to a shard of its zone, or, outside every zone, to
    any shard that is not draining. `donor`: only the chunks on that shard (a drain)."""
    ordered, mins = _ranges_index(ranges)
    sizes = list(sizes) if sizes is not None else [0] * len(chunks)
    load: dict[str, int] = {s: 0 for s in shard_zones}
    loads: dict[str, int] = {s: 0 for s in shard_zones}
    pending: list[PendingMove] = []
    for c, size in zip(chunks, sizes, strict=True):
        load[str(c["shard"])] = load.get(str(c["shard"]), 0) + 1
        loads[str(c["shard"])] = loads.get(str(c["shard"]), 0) + size
    moves: list[Op] = []
    jumbo: list[str] = []
    stranded: set[str] = set()
    violating = runs = 0
    previous: LiveRange | bool | None = False  # False: the last chunk stays
    receivers = sorted(s for s in shard_zones if s not in draining)
    for index, c in enumerate(chunks):
        shard = str(c["shard"])
        r = zone_of(c, ordered, mins)
        leaving = shard in draining
        stays = r.zone in shard_zones.get(shard, ()) if r is not None else True
        if (donor is not None and shard != donor) or (stays and not leaving):
            previous = False
            continue
        violating += 1
        if previous is not r:
            runs += 1
        previous = r
        holders = receivers if r is None else [s for s in receivers if r.zone in shard_zones[s]]
        if not holders:
            stranded.update([r.zone] if r is not None else [])
            continue
        if c.get("jumbo") and not force_jumbo:
            jumbo.append(f"{ns} {_text(c)}")
            continue
        to = min(holders, key=lambda s: (load.get(s, 0), s))
        load[to] = load.get(to, 0) + 1
        load[shard] -= 1
        lo, hi = dict(c["min"]), dict(c["max"])
        pending.append(PendingMove(ns, index, shard, tuple(holders), sizes[index], (lo, hi)))
        if major >= 6:
            moves.append(MoveRange(ns, lo, hi, to, force_jumbo=force_jumbo))
        else:
            moves.append(MoveChunk(ns, lo, hi, to, force_jumbo=force_jumbo))
    return MoveSet(
        tuple(moves),
        violating,
        runs,
        tuple(jumbo),
        tuple(sorted(stranded)),
        tuple(pending),
        loads,
    )


def make_move_op(move: PendingMove, to: str, *, major: int, force_jumbo: bool) -> Op:
    """The command moving `move`'s chunk to `to`: moveRange from 6.0, else moveChunk."""
    lo, hi = cast(tuple[dict[str, Any], dict[str, Any]], move.payload)
    if major >= 6:
        return MoveRange(move.ns, lo, hi, to, force_jumbo=force_jumbo)
    return MoveChunk(move.ns, lo, hi, to, force_jumbo=force_jumbo)


def _text(c: Chunk) -> str:
    from zonectl.model.keys import format_value

    return f"[{format_value(c['min'])}, {format_value(c['max'])})"


def send_move(send: Any, op: Op) -> str:
    """Send one move: "moved", or "skipped: ..." for ChunkTooBig; ConflictingOperation-
    InProgress (another migration on the donor or recipient, §4.4) is retried a few times,
    unless it says the collection disallows migrations."""
    for attempt in range(CONFLICT_RETRIES + 1):
        try:
            send(op)
            return "moved"
        except OpFailedError as exc:
            if exc.code == CHUNK_TOO_BIG:
                return f"skipped: {exc.message} (use --force-jumbo to move it anyway)"
            if (
                exc.code == CONFLICTING_OPERATION
                and attempt < CONFLICT_RETRIES
                and (UNDERGOING_CHANGES not in exc.errmsg)
            ):
                time.sleep(CONFLICT_BACKOFF_S * (2**attempt))
                continue
            raise
    raise AssertionError("unreachable")
