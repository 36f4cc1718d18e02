"""`zonectl doctor --probe --teach-rate`: give a cluster with no migration history some, so the
forecast learns its speed (docs/migration.md) instead of assuming it.

In the probe's scratch collection (sharded on {k: 1}, in zonectl's own database, dropped by
the probe's cleanup whatever happens), it writes chunks of different sizes, 64 MiB in all,
and migrates each between two shards with moveChunk. Every migration leaves in
config.changelog the traces a real one leaves (moveChunk.start/.to/.from/.commit), which is
what `plan` and `status` learn from. Different sizes let the forecast tell the fixed part
of a migration from its copy rate; a handful of small chunks teach the fixed part well and
the rate roughly, so a first `apply --migrate` of real chunks still teaches better.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pymongo import MongoClient
from pymongo.errors import PyMongoError

from zonectl.doctor.facts import Check, Status
from zonectl.errors import redact
from zonectl.plan.ops import SetCollectionBalancing

SIZES_MIB = (2, 4, 8, 12, 16, 22)  # varied, so the fixed part and the rate separate
DOC_BYTES = 64 * 1024
BASE = 1_000_000  # scratch keys from here: clear of the probe's own range [MinKey, 0)
SPAN = 10_000  # keys per chunk
NAME = "probe:teach-rate"
BATCH = 64  # documents per insert (4 MiB)


def teach_rate(client: MongoClient[Any], ns: str, checkpoint: Callable[[], None]) -> Check:
    """Write and migrate the scratch chunks; a check saying what the changelog gained."""
    try:
        shards = [str(d["_id"]) for d in client.config.shards.find({"draining": {"$ne": True}})]
        if len(shards) < 2:
            return Check(
                NAME,
                Status.WARN,
                "one shard that is not draining: there is nothing to migrate between",
                "the forecast stays on its assumed rate until migrations run",
            )
        db, _, name = ns.partition(".")
        # Only these moves: the balancer leaves the scratch collection alone meanwhile.
        client.config.command(SetCollectionBalancing(ns, False).command())
        for j in range(len(SIZES_MIB) + 1):  # split first: each chunk then holds its own
            checkpoint()
            client.admin.command({"split": ns, "middle": {"k": BASE + j * SPAN}})
        _write(client[db][name], checkpoint)
        donor = _shard_of(client, ns, BASE) or shards[0]
        recipient = next(s for s in shards if s != donor)
        started = time.monotonic()
        for j in range(len(SIZES_MIB)):
            checkpoint()
            client.admin.command({"moveChunk": ns, "find": {"k": BASE + j * SPAN}, "to": recipient})
        seconds = time.monotonic() - started
    except PyMongoError as exc:
        return Check(
            NAME,
            Status.WARN,
            f"could not migrate the scratch chunks: {redact(str(exc))}",
            "a first small `zonectl apply --migrate` teaches the rate instead",
        )
    moved = sum(SIZES_MIB)
    return Check(
        NAME,
        Status.OK,
        f"migrated {len(SIZES_MIB)} scratch chunks ({moved} MiB) {donor} -> {recipient} in "
        f"{seconds:.1f} s: config.changelog now has migrations for plan and status to "
        "learn the fixed part and the copy rate from",
    )


def _write(coll: Any, checkpoint: Callable[[], None]) -> None:
    payload = "x" * (DOC_BYTES - 64)
    for j, mib in enumerate(SIZES_MIB):
        keys = range(BASE + j * SPAN, BASE + j * SPAN + mib * (1024**2 // DOC_BYTES))
        batch: list[dict[str, Any]] = []
        for k in keys:
            batch.append({"k": k, "pad": payload})
            if len(batch) == BATCH:
                checkpoint()
                coll.insert_many(batch, ordered=False)
                batch = []
        if batch:
            coll.insert_many(batch, ordered=False)


def _shard_of(client: MongoClient[Any], ns: str, key: int) -> str | None:
    """The shard holding the chunk whose range starts at {k: key}."""
    entry = client.config.collections.find_one({"_id": ns}) or {}
    where: dict[str, Any] = {"uuid": entry["uuid"]} if "uuid" in entry else {"ns": ns}
    chunk = client.config.chunks.find_one({**where, "min": {"k": key}})
    return str(chunk["shard"]) if chunk is not None else None
