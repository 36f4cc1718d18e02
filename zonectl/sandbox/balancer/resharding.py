"""A resharding in flight: its coordinator document, its phases on the sandbox clock, and
its end (commit or abort).

While it runs (mongo:jstests/sharding/reshard_collection_basic.js checks these are gone after):
config.reshardingOperations holds the coordinator document (ReshardingCoordinatorDocument:
`_id` the resharding UUID, `ns`, `reshardingKey`, `tempNs`, `sourceUUID`, `state`,
`donorShards`/`recipientShards` with each one's `mutableState.state`, `approxBytesToCopy`,
`approxDocumentsToCopy`, `zones`, `startTime`), and config.collections has `reshardingFields`
and `allowMigrations: false` (the balancer leaves the collection alone).
The commit (manual, "Resharding Process"): the temporary collection replaces the original,
so the collection gets a new UUID, a new epoch and timestamp, the new key and the new chunks;
its zone ranges become the request's `zones`. An abort drops the temporary collection and
leaves the original as it was. One resharding at a time in the cluster.
Each coordinator state change is logged to config.changelog as MongoDB logs it,
`resharding.coordinator.transition` with newState, oldState, namespace, collectionUUID and
reshardingUUID (mongo:src/mongo/db/s/resharding/resharding_coordinator.cpp), dated at the
instant the phase changed: the history zonectl's forecast learns resharding phases from.
"""

from __future__ import annotations

import datetime as dt
import uuid
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bson import Binary, ObjectId

from zonectl.sandbox.balancer.resharding_time import Phases, phases
from zonectl.sandbox.catalog.chunks import ChunkStore
from zonectl.sandbox.catalog.cluster import COLLECTIONS, TAGS, Cluster
from zonectl.sandbox.catalog.reshard_layout import Layout, build
from zonectl.sandbox.catalog.unsharded import RESHARDING_OPERATIONS

STEP = dt.timedelta(seconds=30)  # how far a virtual clock jumps at once while one runs


@dataclass
class Resharding:
    id: Binary
    ns: str
    key: dict[str, Any]
    zones: list[dict[str, Any]] | None
    layout: Layout
    phases: Phases
    outcome: str | None = None  # "committed" | "aborted" once finished
    source_uuid: Any = None  # the collection's UUID before the resharding (changelog details)
    logged: str = "unused"  # the last state logged to config.changelog

    def state_at(self, now: dt.datetime) -> str:
        if self.outcome == "aborted":
            return "aborting"
        return "done" if self.outcome else self.phases.state_at(now)

    def copied_share(self, now: dt.datetime) -> float:
        """Share of the cloning done at `now` (all shards copy in parallel, evenly)."""
        span = (self.phases.clone_end - self.phases.start).total_seconds()
        if span <= 0:
            return 1.0
        return max(0.0, min(1.0, (now - self.phases.start).total_seconds() / span))


_RUNNING: weakref.WeakKeyDictionary[Cluster, dict[str, Resharding]] = weakref.WeakKeyDictionary()


def running(cluster: Cluster) -> list[Resharding]:
    return [op for op in _RUNNING.get(cluster, {}).values() if op.outcome is None]


def find(cluster: Cluster, ns: str) -> Resharding | None:
    return next((op for op in running(cluster) if op.ns == ns), None)


def start(
    cluster: Cluster,
    ns: str,
    key: Mapping[str, Any],
    zones: Sequence[Mapping[str, Any]] | None,
    num_chunks: int | None,
    rate_of: Callable[[str], float],
) -> Resharding:
    layout = build(cluster, ns, key, list(zones or []), num_chunks)
    now = cluster.now()
    op_id = Binary.from_uuid(uuid.uuid4())
    op = Resharding(
        op_id,
        ns,
        dict(key),
        [dict(z) for z in zones] if zones is not None else None,
        layout,
        phases(now, layout.sent, layout.received, rate_of),
    )
    _RUNNING.setdefault(cluster, {})[ns] = op
    source = cluster.collection_doc(ns) or {}
    op.source_uuid = source.get("uuid")
    doc = {
        "_id": op_id,
        "ns": ns,
        "reshardingKey": dict(key),
        "tempNs": f"{ns.split('.', 1)[0]}.system.resharding.{uuid.UUID(bytes=bytes(op_id))}",
        "sourceUUID": source.get("uuid"),
        "state": "cloning",
        "provenance": "reshardCollection",
        "donorShards": [_participant(s, "donating-initial-data") for s in sorted(layout.sent)],
        "recipientShards": [_participant(s, "cloning") for s in sorted(layout.received)],
        "startTime": now,
        "approxBytesToCopy": layout.total_bytes,
        "approxDocumentsToCopy": layout.total_docs,
    }
    if zones is not None:
        doc["zones"] = [dict(z) for z in zones]
    cluster.coll(RESHARDING_OPERATIONS).put(doc)
    fields = {"uuid": op_id, "state": "cloning"}
    cluster.coll(COLLECTIONS).put({**source, "reshardingFields": fields, "allowMigrations": False})
    for state in ("initializing", "preparing-to-donate", "cloning"):
        _transition(cluster, op, state, now)
    return op


def _transition(cluster: Cluster, op: Resharding, state: str, at: dt.datetime) -> None:
    """The coordinator's changelog entry for its move to `state` at instant `at`."""
    coll_uuid = op.source_uuid
    details = {
        "newState": state,
        "oldState": op.logged,
        "namespace": op.ns,
        "collectionUUID": str(coll_uuid.as_uuid()) if coll_uuid is not None else "",
        "reshardingUUID": str(uuid.UUID(bytes=bytes(op.id))),
    }
    cluster.log_change("resharding.coordinator.transition", op.ns, details, at=at)
    op.logged = state


def _log_phases(cluster: Cluster, op: Resharding, now: dt.datetime) -> None:
    """Log every phase the clock has reached since the last one logged, at its instant."""
    p = op.phases
    order = ("cloning", "applying", "blocking-writes", "committing", "done")
    instants = (p.start, p.clone_end, p.critical_start, p.commit, p.commit)
    for state, instant in zip(order, instants, strict=True):
        if instant <= now and order.index(state) > order.index(op.logged):
            _transition(cluster, op, state, instant)


def _participant(shard: str, state: str) -> dict[str, Any]:
    return {"id": shard, "mutableState": {"state": state}}


def refresh(cluster: Cluster, op: Resharding) -> None:
    """Write the coordinator state the clock has reached; commit when it is due."""
    if op.outcome is not None:
        return
    now = cluster.now()
    _log_phases(cluster, op, now)
    if now >= op.phases.commit:
        _commit(cluster, op)
        return
    operations = cluster.coll(RESHARDING_OPERATIONS)
    doc = operations.get(op.id)
    state = op.phases.state_at(now)
    if doc is not None and doc.get("state") != state:
        operations.put({**doc, "state": state})


def next_instant(cluster: Cluster, op: Resharding) -> dt.datetime:
    """The next phase instant, at most STEP ahead (progress shows on a virtual clock)."""
    now = cluster.now()
    marks = [op.phases.clone_end, op.phases.critical_start, op.phases.commit]
    due = min([m for m in marks if m > now], default=op.phases.commit)
    return min(due, now + STEP)


def request_commit(cluster: Cluster, op: Resharding) -> None:
    """commitReshardCollection: enter the critical section as soon as the oplog is caught
    up, without waiting out the minimum duration (inferred from the manual's "forces the
    resharding operation to block writes and complete")."""
    now = cluster.now()
    critical = max(now, op.phases.apply_end)
    p = op.phases
    if critical < p.critical_start:
        op.phases = Phases(
            p.start, p.clone_end, p.apply_end, critical, critical + (p.commit - p.critical_start)
        )


def abort(cluster: Cluster, op: Resharding) -> bool:
    """Abort unless the decision is persisted (the commit instant passed): True if aborted."""
    if op.outcome == "committed" or cluster.now() >= op.phases.commit:
        return False
    op.outcome = "aborted"
    _log_phases(cluster, op, cluster.now())
    _clear(cluster, op)
    _transition(cluster, op, "aborting", cluster.now())
    _transition(cluster, op, "done", cluster.now())
    return True


def _clear(cluster: Cluster, op: Resharding) -> None:
    cluster.coll(RESHARDING_OPERATIONS).remove(op.id)
    doc = cluster.collection_doc(op.ns)
    if doc is not None:
        rest = {k: v for k, v in doc.items() if k not in ("reshardingFields", "allowMigrations")}
        cluster.coll(COLLECTIONS).put(rest)
    _RUNNING.get(cluster, {}).pop(op.ns, None)


def _commit(cluster: Cluster, op: Resharding) -> None:
    op.outcome = "committed"
    _clear(cluster, op)
    doc = cluster.collection_doc(op.ns)
    old = cluster.chunks(op.ns)
    assert doc is not None and old is not None
    now, ts, epoch = cluster.now(), cluster.now_ts(), ObjectId()
    new_doc = {
        **doc,
        "uuid": op.id,  # the temporary collection, renamed: the resharding UUID
        "key": dict(op.key),
        "lastmodEpoch": epoch,
        "lastmod": now.replace(microsecond=now.microsecond // 1000 * 1000),
        "timestamp": ts,
    }
    cluster.coll(COLLECTIONS).put(new_doc)
    store = ChunkStore(op.ns, op.id, epoch, old.form)
    layout = op.layout
    store.load(layout.bounds, layout.shards, ts, layout.sizes, layout.counts)
    cluster.attach_store(store)
    if op.zones is not None:
        tags = cluster.coll(TAGS)
        for zr in cluster.zone_ranges(op.ns):
            tags.remove(zr.id)
        for zone in op.zones:
            if zone.get("zone") is not None:
                entry = {"ns": op.ns, "min": zone["min"], "max": zone["max"], "tag": zone["zone"]}
                tags.put({"_id": ObjectId(), **entry})
