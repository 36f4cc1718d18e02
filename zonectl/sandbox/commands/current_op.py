"""`$currentOp` through the mongos: the operations of chunk migrations in flight, of
moveCollection (move_collection.py) and of reshardCollection (reshard_current_op.py), as the
shards report them; nothing else runs in a sandbox long enough to be seen.

A chunk migration shows as (mongo:src/mongo/db/s/shardsvr_move_range_command.cpp,
migration_destination_manager.cpp, move_timing_helper.cpp, jstests/libs/
chunk_manipulation_util.js):
- on the donor, the command the config server sent: `_shardsvrMoveRange` (6.0+) or
  `moveChunk` (5.0), which waits for the migration;
- on the donor, the migration itself on its own client, `desc: "MoveChunk"` (4.4+), with
  `msg: "step N of 6"` (MoveTimingHelper sets it after each step; while the range is
  cloned the last step done is 3, "startedMoveChunk");
- on the recipient, `desc: "migrateThread"` with `msg: "step N of 8"` (8 steps since 5.0;
  while cloning the last done is 3, "rangeDeletionTaskScheduled").
Inferred, not read in a source: the internal clients' `op: "none"` and empty `ns` and
`command`, the command's fields besides the namespace and bounds, and that no `progress`
meter is reported. Every op needs `allUsers: true` (internal clients are nobody's), which
needs the `inprog` action (DocumentSourceCurrentOp::LiteParsed).
"""

from __future__ import annotations

import datetime as dt
import zlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bson import Int64

from zonectl.sandbox.commands.move_collection import current_ops as move_collection_ops
from zonectl.sandbox.commands.reshard_current_op import current_ops as reshard_ops

if TYPE_CHECKING:
    from zonectl.sandbox.balancer.migrations import InFlight
    from zonectl.sandbox.commands.registry import Request

DONOR_STEPS, RECIPIENT_STEPS = 6, 8
CLONING_STEP = 3  # the last step both sides have done while the range is copied


def documents(request: Request, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The `$currentOp` stage's output for its `options`."""
    if not options.get("allUsers"):
        return []  # only the caller's own operations, and it has none running
    cluster = request.sandbox.cluster
    now = cluster.now()
    out: list[dict[str, Any]] = []
    for flight in request.sandbox.balancer.active:
        out += _migration_ops(request, flight, now)
    return out + move_collection_ops(request) + reshard_ops(request)


def _migration_ops(request: Request, flight: InFlight, now: dt.datetime) -> list[dict[str, Any]]:
    modern = request.sandbox.version.version_array[0] >= 6
    name = "_shardsvrMoveRange" if modern else "moveChunk"
    command: dict[str, Any] = {name: flight.ns}
    if not modern:
        command["configdb"] = "config/config.sandbox:27019"
    command |= {
        "fromShard": flight.donor,
        "toShard": flight.recipient,
        "min": flight.min,
        "max": flight.max,
        "waitForDelete": flight.wait_for_delete,
        "forceJumbo": False,
    }
    base = {"type": "op", "active": True, "numYields": 0, "waitingForLock": False}
    return [
        _op(request, flight, now, flight.donor, 1, base | {
            "desc": "conn",
            "op": "command",
            "ns": flight.ns,
            "command": command,
        }),
        _op(request, flight, now, flight.donor, 2, base | {
            "desc": "MoveChunk",
            "op": "none",
            "ns": "",
            "command": {},
            "msg": f"step {CLONING_STEP} of {DONOR_STEPS}",
        }),
        _op(request, flight, now, flight.recipient, 3, base | {
            "desc": "migrateThread",
            "op": "none",
            "ns": "",
            "command": {},
            "msg": f"step {CLONING_STEP} of {RECIPIENT_STEPS}",
        }),
    ]  # fmt: skip


def _op(
    request: Request,
    flight: InFlight,
    now: dt.datetime,
    shard: str,
    index: int,
    fields: dict[str, Any],
) -> dict[str, Any]:
    running = max((now - flight.started).total_seconds(), 0.0)
    # A stable opid per migration and op: the mongos prefixes the shard's with its name.
    seed = f"{flight.ns}|{flight.donor}|{flight.started.isoformat()}|{index}".encode()
    opid = zlib.crc32(seed) % 1_000_000
    doc = request.sandbox.cluster.shard_doc(shard) or {}
    host = str(doc.get("host", shard)).partition("/")[2].split(",")[0] or shard
    desc = fields["desc"] + str(opid % 1000) if fields["desc"] == "conn" else fields["desc"]
    return {
        "shard": shard,
        "host": host,
        **fields,
        "desc": desc,
        "opid": f"{shard}:{opid}",
        "currentOpTime": now.isoformat(timespec="milliseconds"),
        "secs_running": Int64(int(running)),
        "microsecs_running": Int64(int(running * 1_000_000)),
    }
