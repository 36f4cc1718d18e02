"""Chunk migrations: the per-shard active-migrations registry and the commit of a move.

A shard donates at most one range and receives at most one range at a time; any other
request fails with ConflictingOperationInProgress, an identical one joins the running one
(mongo:src/mongo/db/s/active_migrations_registry.cpp; reference §4.4). A commit bumps the
chunk version and history through `ChunkStore.move` and writes the `moveChunk.*`
changelog entries as the shards write them (reference §2.6): moveChunk.start by the donor
when the clone starts; at the end moveChunk.to by the recipient and moveChunk.commit and
moveChunk.from by the donor, the .to/.from ones with `MoveTimingHelper`'s "step N of M"
milliseconds (mongo:src/mongo/db/s/move_timing_helper.cpp), .commit with the recipient's
clone counts (migration_source_manager.cpp `commitChunkMetadataOnConfig`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bson import Int64

from zonectl.sandbox.balancer.costs import MigrationCost
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import equal
from zonectl.sandbox.tostring import to_string

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.cluster import Cluster


@dataclass
class InFlight:
    """One migration between its start and its commit."""

    ns: str
    min: dict[str, Any]
    max: dict[str, Any]
    donor: str
    recipient: str
    reason: str
    started: dt.datetime
    due: dt.datetime
    by_balancer: bool = True
    # What the balancer sends with it (balancer document, reference §1.2): `_waitForDelete`,
    # `_secondaryThrottle` (None = default) and the collection's chunk size.
    wait_for_delete: bool = False
    secondary_throttle: bool | dict[str, Any] | None = None
    max_chunk_size_bytes: int | None = None
    error: CommandError | None = field(default=None, compare=False)
    cost: MigrationCost | None = field(default=None, compare=False)

    def same_request(self, ns: str, lo: Mapping[str, Any], hi: Mapping[str, Any], to: str) -> bool:
        return (
            self.ns == ns and equal(self.min, lo) and equal(self.max, hi) and self.recipient == to
        )


def _range_text(lo: Mapping[str, Any], hi: Mapping[str, Any]) -> str:
    return f"{to_string(lo)} -> {to_string(hi)}"  # ChunkRange::toString


class ActiveMigrations:
    """Per-shard registry of the migrations in flight."""

    def __init__(self, ranges_wording: bool) -> None:
        # 6.0+ words the donor conflict as "donating range 'min: ... - max: ...'".
        self._ranges_wording = ranges_wording
        self._donating: dict[str, InFlight] = {}
        self._receiving: dict[str, InFlight] = {}

    def __iter__(self) -> Any:
        return iter(list(self._donating.values()))

    def __len__(self) -> int:
        return len(self._donating)

    def busy(self) -> set[str]:
        return set(self._donating) | set(self._receiving)

    def find_identical(
        self, ns: str, lo: Mapping[str, Any], hi: Mapping[str, Any], to: str
    ) -> InFlight | None:
        for mig in self._donating.values():
            if mig.same_request(ns, lo, hi, to):
                return mig
        return None

    def conflict(self, donor: str, recipient: str) -> CommandError | None:
        """The error a new migration donor -> recipient gets, or None if it may start."""
        for shard in (donor, recipient):
            mig = self._donating.get(shard)
            if mig is not None:
                return self._donating_error(mig)
            mig = self._receiving.get(shard)
            if mig is not None:
                return CommandError.of(
                    "ConflictingOperationInProgress",
                    "Unable to start new balancer operation because this shard is currently "
                    f"receiving chunk {_range_text(mig.min, mig.max)} for namespace {mig.ns} "
                    f"from {mig.donor}",
                )
        return None

    def _donating_error(self, mig: InFlight) -> CommandError:
        if self._ranges_wording:
            text = (
                "Unable to start new balancer operation because this shard is currently "
                f"donating range 'min: {to_string(mig.min)} - max: {to_string(mig.max)}' "
                f"for namespace {mig.ns} to shard {mig.recipient}"
            )
        else:
            text = (
                "Unable to start new balancer operation because this shard is currently "
                f"donating chunk {_range_text(mig.min, mig.max)} for namespace {mig.ns} "
                f"to {mig.recipient}"
            )
        return CommandError.of("ConflictingOperationInProgress", text)

    def register(self, mig: InFlight) -> None:
        self._donating[mig.donor] = mig
        self._receiving[mig.recipient] = mig

    def release(self, mig: InFlight) -> None:
        if self._donating.get(mig.donor) is mig:
            del self._donating[mig.donor]
        if self._receiving.get(mig.recipient) is mig:
            del self._receiving[mig.recipient]

    def touching(self, ns: str) -> list[InFlight]:
        return [m for m in self._donating.values() if m.ns == ns]


def too_big_error(
    ns: str, lo: Mapping[str, Any], hi: Mapping[str, Any], size: int, count: int, max_bytes: int
) -> CommandError | None:
    """The donor's ChunkTooBig check (migration_chunk_cloner_source_legacy.cpp).

    The cloner allows `maxChunkSize / avgObjSize` documents plus 30% slack; a chunk with
    more documents cannot be moved unless the move forces jumbo chunks (reference §4.3).
    """
    if count <= 1 or size <= 0:
        return None
    avg = max(size // count, 1)
    max_recs = (max_bytes // avg) * 130 // 100
    if count <= max_recs:
        return None
    return CommandError.of(
        "ChunkTooBig",
        f"Cannot move chunk: the maximum number of documents for a chunk is {max_recs}, "
        f"the maximum chunk size is {max_bytes}, average document size is {avg}. "
        f"Found {count} documents in chunk  ns: {ns} {to_string(lo)} -> {to_string(hi)}",
    )


def commit_move(cluster: Cluster, mig: InFlight) -> bool:
    """Commit a migration in the chunk store and the changelog; False if the chunk is gone.

    `_configsvrCommitChunkMigration` gives the moved chunk (collVersion.major + 1, 0) and
    prepends a history entry; the recipient logs moveChunk.to, the donor moveChunk.commit
    then moveChunk.from (its `MoveTimingHelper` logs as it goes out of scope).
    """
    store = cluster.chunks(mig.ns)
    i = store.index_of_min(mig.min) if store is not None else None
    donor_ms = mig.cost.donor_ms if mig.cost is not None else (0,) * 6
    recipient_ms = mig.cost.recipient_ms if mig.cost is not None else (0,) * 8
    if store is None or i is None or store.shard_at(i) != mig.donor:
        # The commit on the recipient (step 5) failed: _cleanupOnError logs moveChunk.error,
        # and the donor's timing entry says "aborted" with the steps it finished.
        log_move(cluster, "moveChunk.error", mig, {}, by=mig.donor)
        errmsg = "commit clone failed :: caused by :: chunk changed during migration"
        log_move(cluster, "moveChunk.from", mig, _steps(donor_ms[:4], 6), by=mig.donor,
                 note="aborted", errmsg=errmsg)  # fmt: skip
        return False
    chunk = store.chunk(i)
    store.move(i, mig.recipient, cluster.now_ts())
    counts = {"cloned": chunk.count, "clonedBytes": chunk.size, "catchup": 0, "steady": 0}
    log_move(cluster, "moveChunk.to", mig, _steps(recipient_ms, 8), by=mig.recipient,
             note="success")  # fmt: skip
    log_move(cluster, "moveChunk.commit", mig, {"counts": counts}, by=mig.donor)
    log_move(cluster, "moveChunk.from", mig, _steps(donor_ms, 6), by=mig.donor, note="success")
    return True


# The donor's `failMigrationCommit` fail point (migration_source_manager.cpp): the commit
# fails with InternalError and this message, which moveChunk.error carries from FCV 8.3
# (jstests/sharding/move_chunk_error_errmsg.js, requires_fcv_83); MoveTimingHelper's
# moveChunk.from ("aborted") carries it in every release.
FAIL_COMMIT_MESSAGE = "Failing _recvChunkCommit due to failpoint."


def fail_commit(cluster: Cluster, mig: InFlight, errmsg_in_error: bool) -> CommandError:
    """A commit refused by the donor's failMigrationCommit fail point: nothing moves, the
    changelog says so as the donor writes it (`_cleanupOnError`, then MoveTimingHelper)."""
    donor_ms = mig.cost.donor_ms if mig.cost is not None else (0,) * 6
    log_move(cluster, "moveChunk.error", mig, {}, by=mig.donor,
             errmsg=FAIL_COMMIT_MESSAGE if errmsg_in_error else None)  # fmt: skip
    log_move(cluster, "moveChunk.from", mig, _steps(donor_ms[:4], 6), by=mig.donor,
             note="aborted", errmsg=FAIL_COMMIT_MESSAGE)  # fmt: skip
    return CommandError.of("InternalError", FAIL_COMMIT_MESSAGE)


def _steps(ms: tuple[int, ...], total: int) -> dict[str, Any]:
    return {f"step {n} of {total}": v for n, v in enumerate(ms, 1)}


def log_move(
    cluster: Cluster,
    what: str,
    mig: InFlight,
    steps: Mapping[str, Any],
    *,
    by: str,
    note: str | None = None,
    errmsg: str | None = None,
) -> None:
    """One moveChunk.* changelog entry, written by shard `by`. Field order as MongoDB's:
    the step timings, then min, max, from/to (.start/.commit/.error: from before to;
    MoveTimingHelper: to before from), note, errmsg."""
    details: dict[str, Any] = dict(steps) if what in ("moveChunk.to", "moveChunk.from") else {}
    details.update({"min": mig.min, "max": mig.max})
    if what in ("moveChunk.to", "moveChunk.from"):
        details.update({"to": mig.recipient, "from": mig.donor, "note": note or "success"})
        if errmsg:
            details["errmsg"] = errmsg
    else:
        details.update({"from": mig.donor, "to": mig.recipient})
        if what == "moveChunk.commit":
            details.update(steps)  # counts
        if what == "moveChunk.error" and errmsg:
            details["errmsg"] = errmsg
    cluster.log_change(what, mig.ns, details, shard=by)


def _migration_id(mig: InFlight) -> str:
    # MigrateInfo::getName: "<ns>-" then "<field>_<value>" for each field of the min.
    return mig.ns + "-" + "".join(f"{k}_{to_string(v)}" for k, v in mig.min.items())


def record_migration(cluster: Cluster, mig: InFlight, force_jumbo: bool) -> None:
    """4.4-6.x keep one `config.migrations` document per balancer migration in flight
    (mongo:src/mongo/db/s/balancer/type_migration.cpp; field forms inferred, reference
    §2.6). 6.0 adds the optional `maxChunkSizeBytes` and the secondary throttle, which
    `MigrationSecondaryThrottleOptions::append` writes as `secondaryThrottle` (and a
    `writeConcern`) unless it is the default (from memory)."""
    if cluster.version.version_array[0] > 6:
        return
    store = cluster.chunks(mig.ns)
    i = store.index_of_min(mig.min) if store is not None else None
    if store is None or i is None:
        return
    cluster.coll("config.migrations").put(
        {
            "_id": _migration_id(mig),
            "ns": mig.ns,
            "min": mig.min,
            "max": mig.max,
            "fromShard": mig.donor,
            "toShard": mig.recipient,
            "chunkVersion": [store.chunk(i).lastmod, store.epoch],
            "waitForDelete": mig.wait_for_delete,
            "forceJumbo": "forceBalancer" if force_jumbo else "doNotForceJumbo",
        }
        | _optional_fields(cluster, mig)
    )


def _optional_fields(cluster: Cluster, mig: InFlight) -> dict[str, Any]:
    if cluster.version.version_array[0] < 6:
        return {}
    out: dict[str, Any] = {}
    if mig.max_chunk_size_bytes is not None:
        out["maxChunkSizeBytes"] = Int64(mig.max_chunk_size_bytes)
    throttle = mig.secondary_throttle
    if isinstance(throttle, dict):
        out |= {"secondaryThrottle": True, "writeConcern": throttle}
    elif throttle is not None:
        out["secondaryThrottle"] = throttle
    return out


def forget_migration(cluster: Cluster, mig: InFlight) -> None:
    coll = cluster.catalog.get("config.migrations")
    if coll is not None:
        coll.remove(_migration_id(mig))
