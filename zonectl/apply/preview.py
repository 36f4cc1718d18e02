"""What eager migration would do to a namespace once a plan has run: the plan's range
and membership ops applied to the chunks, ranges and shards read now. Sends nothing."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from zonectl.apply import migrate
from zonectl.apply.migrate import MoveSet
from zonectl.apply.ports import Ports
from zonectl.model.cluster import LiveRange
from zonectl.model.keys import sort_key
from zonectl.plan.ops import SplitChunk
from zonectl.plan.plan import Plan


@dataclass(frozen=True)
class Preview:
    """What eager migration would do to one namespace, computed without changing it."""

    ns: str
    splits: tuple[SplitChunk, ...]
    moves: MoveSet


def preview_migration(
    ports: Ports, ns: str, force_jumbo: bool, plan: Plan | None = None
) -> Preview:
    """Splits and moves eager migration would make for `ns`, once `plan` (if given) has
    run: its range and membership ops are applied to what is read, nothing is sent."""
    chunks = ports.chunks.read_chunks(ns)
    ranges = ports.chunks.read_ranges(ns)
    state = ports.read_state([ns])
    zones = {s.id: set(s.zones) for s in state.shards if not s.draining}
    draining = frozenset(s.id for s in state.shards if s.draining)
    for op in plan.ops if plan is not None else ():
        change, member = op.range_change(), op.membership_change()
        if change is not None and change.ns == ns:
            if change.adds:
                ranges.append(LiveRange(ns, change.zone, dict(change.min), dict(change.max)))
            else:
                gone = (sort_key(change.min), sort_key(change.max))
                ranges = [r for r in ranges if (sort_key(r.min), sort_key(r.max)) != gone]
        elif member is not None and member.shard in zones:
            if member.joins:
                zones[member.shard].add(member.zone)
            else:
                zones[member.shard].discard(member.zone)
    shard_zones = {shard: tuple(sorted(z)) for shard, z in zones.items()}
    return _preview(ports, ns, chunks, ranges, shard_zones, force_jumbo, draining)


def drain_preview(
    ports: Ports, ns: str, shard: str, leaving: Collection[str], force_jumbo: bool
) -> Preview:
    """The splits (at zone bounds inside its chunks) and moves that take every chunk of
    `ns` off `shard`: each to a shard of its zone, else to any shard; never to a shard
    draining or `leaving` (removed by the plan)."""
    chunks = ports.chunks.read_chunks(ns)
    ranges = ports.chunks.read_ranges(ns)
    state = ports.read_state([ns])
    gone = {shard, *leaving, *(s.id for s in state.shards if s.draining)}
    shard_zones = {s.id: tuple(sorted(s.zones)) for s in state.shards if s.id not in gone}
    own = [c for c in chunks if c["shard"] == shard]
    return _preview(
        ports, ns, chunks, ranges, shard_zones, force_jumbo, frozenset(gone), own=own, donor=shard
    )


def _preview(
    ports: Ports,
    ns: str,
    chunks: list[dict[str, Any]],
    ranges: Sequence[LiveRange],
    shard_zones: Mapping[str, tuple[str, ...]],
    force_jumbo: bool,
    draining: frozenset[str],
    *,
    own: Sequence[Mapping[str, Any]] | None = None,
    donor: str | None = None,
) -> Preview:
    """The splits at zone bounds inside `own` (every chunk when None), then the moves."""
    splits = migrate.make_splits(ns, chunks if own is None else own, ranges)
    after = migrate.split_locally(chunks, splits)
    default = ports.chunks.max_chunk_bytes(ns) // 2
    sizes = migrate.estimate_sizes(after, ports.chunks.read_shard_bytes(ns), default)
    moves = migrate.make_moves(
        ns, after, ranges, shard_zones, major=ports.major, force_jumbo=force_jumbo, sizes=sizes,
        draining=draining, donor=donor,
    )  # fmt: skip
    return Preview(ns, tuple(splits), _measured(ports, moves))


def _measured(ports: Ports, moves: MoveSet) -> MoveSet:
    """The moves with each chunk's bytes from `dataSize` where the server answers it
    (estimates otherwise): largest-first and the progress bar need real sizes."""
    ranges = [cast(tuple[dict[str, Any], dict[str, Any]], m.payload) for m in moves.pending]
    ns = moves.pending[0].ns if moves.pending else ""
    sizes = ports.chunks.read_range_bytes(ns, ranges) if ranges else None
    if sizes is None:
        return moves
    loads = dict(moves.loads)
    pending = []
    for m, size in zip(moves.pending, sizes, strict=True):
        loads[m.donor] = loads.get(m.donor, 0) + size - m.bytes
        pending.append(dataclasses.replace(m, bytes=size))
    return dataclasses.replace(moves, pending=tuple(pending), loads=loads)
