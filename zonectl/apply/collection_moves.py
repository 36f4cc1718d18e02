"""Around one moveCollection op: never start a second move while the server runs one on the
same collection (wait for it, up to --wait-timeout, else stop and say so); after a reset
connection, look it up (found done, awaited, sent again); afterwards verify where the
collection lives, since only the server's metadata says the move happened."""

from __future__ import annotations

import time
from collections.abc import Callable

from zonectl.apply.move_lookup import Lookup, Resets
from zonectl.apply.ports import UnshardedReader
from zonectl.plan.failures import MoveNotDoneError
from zonectl.plan.ops import MoveCollection

_POLL_S = 0.2


def settle_running_move(
    reader: UnshardedReader, op: MoveCollection, timeout_s: float, note: Callable[[str], None]
) -> str | None:
    """Wait out a move already running on `op`'s collection (an earlier apply that lost its
    connection or was interrupted). The shard the collection lives on once it has ended;
    None when no move was running."""
    running = reader.read_move(op.ns)
    if running is None:
        return None
    note(
        f"{op.ns}: a moveCollection to {running.to_shard} is already running on the server "
        f"(since {running.started}); waiting up to {timeout_s:g}s instead of starting another"
    )
    deadline = time.monotonic() + timeout_s
    while reader.read_move(op.ns) is not None:
        if time.monotonic() >= deadline:
            raise MoveNotDoneError(
                f"{op.ns}: the moveCollection to {running.to_shard} started at "
                f"{running.started} is still running; zonectl does not start a second one",
                hint="rerun `zonectl apply` once it has finished (config.reshardingOperations), "
                "or raise --wait-timeout",
            )
        time.sleep(_POLL_S)
    return reader.read_home_shard(op.ns)


def verify_move(reader: UnshardedReader, op: MoveCollection) -> None:
    where = reader.read_home_shard(op.ns)
    if where != op.to_shard:
        raise MoveNotDoneError(
            f"verification failed for {op.ns}: after moveCollection it lives on "
            f"{where or 'no known shard'}, not {op.to_shard}",
            hint="run `zonectl status` to see where it lives, then `zonectl plan`",
        )


def collection_lookup(
    reader: UnshardedReader, op: MoveCollection, note: Callable[[str], None], resets: Resets
) -> Lookup:
    """How a moveCollection whose connection reset is looked up (apply/move_lookup.py):
    landed when the collection's one chunk is on the destination; running while a
    resharding of it (its coordinator document) is in config.reshardingOperations. The
    coordinator goes on without the client, and the same command sent again joins it ("due
    to client disconnect": getExistingInstanceToJoin, mongo:src/mongo/db/s/config/
    configsvr_reshard_collection_cmd.cpp)."""
    return Lookup(
        lambda: reader.read_home_shard(op.ns) == op.to_shard,
        lambda: reader.read_move(op.ns) is not None,
        note,
        f"{op.ns} (moveCollection) on {op.from_shard} -> {op.to_shard}",
        resets,
        thing="collection",
        operation="moveCollection",
        shown_done="config.chunks shows it on its destination",
    )
