"""`zonectl status` as a value, and its versioned JSON view (the text view is in
status_text.py)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bson import json_util

from zonectl.explain.reasons import Explanation
from zonectl.model.capacity import CapacityReport
from zonectl.model.cluster import ReshardProgress
from zonectl.model.layout import ChunkLayout
from zonectl.model.shard_lifecycle import Blocker, ShardDrain
from zonectl.plan.capacity_doc import capacity_to_doc
from zonectl.plan.settings_view import SettingLine
from zonectl.render.json_indent import dumps_indented
from zonectl.render.status_explain import explain_json

FORMAT_VERSION = 1


@dataclass(frozen=True)
class ChunkRef:
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    shard: str
    zone: str | None = None


@dataclass(frozen=True)
class ShardStatus:
    id: str
    host: str
    zones: tuple[str, ...]
    draining: bool
    chunks: int  # over the namespaces scanned
    bytes: int | None  # owned bytes where the server reports them ($shardedDataDistribution)


@dataclass(frozen=True)
class RangeStatus:
    zone: str
    min: Mapping[str, Any]
    max: Mapping[str, Any]


@dataclass(frozen=True)
class CollectionStatus:
    namespace: str
    sharded: bool
    key: Mapping[str, Any] | None
    balancing: bool | None  # None: not sharded
    ranges: tuple[RangeStatus, ...]
    chunks: int = 0
    per_shard: Mapping[str, int] = field(default_factory=dict)
    outside_zone: int = 0
    straddling: int = 0
    jumbo: int = 0
    first_outside: ChunkRef | None = None
    first_straddling: ChunkRef | None = None
    zones_without_shard: tuple[str, ...] = ()
    server: Mapping[str, Any] | None = None  # balancerCollectionStatus reply
    server_note: str | None = None  # why there is no server reply
    outside_bytes: int | None = None  # estimated; None where the server reports no bytes
    owned_bytes: Mapping[str, int] | None = None  # shard -> bytes ($shardedDataDistribution)
    layout: ChunkLayout | None = None  # each chunk's shard and standing, for --format html
    explained: Explanation | None = None  # zonectl explain's state and reasons (sharded only)

    @property
    def compliant(self) -> bool:
        return self.outside_zone == 0 and self.straddling == 0 and not self.zones_without_shard


@dataclass(frozen=True)
class BalancerState:
    mode: str
    enabled: bool
    active_window: Mapping[str, str] | None
    in_round: bool
    rounds: int | None
    # activeWindowDOW in force (8.3+ at FCV 8.3): it replaces active_window (§1.4).
    day_windows: tuple[Mapping[str, str], ...] = ()

    def days_text(self) -> str:
        """`Monday 01:00-05:00, Friday 14:00-18:00`."""
        return ", ".join(
            f"{d.get('day')} {d.get('start')}-{d.get('stop')}" for d in self.day_windows
        )

    def ignored_window(self) -> str:
        """`; activeWindow 23:00-06:00 ignored` when day-of-week windows replace it."""
        w = self.active_window
        if not (self.day_windows and w):
            return ""
        return f"; activeWindow {w.get('start')}-{w.get('stop')} ignored"


@dataclass(frozen=True)
class LeaseState:
    holder: str  # describe_holder text
    expires: dt.datetime | None
    expired: bool
    acquired: dt.datetime | None = None


@dataclass(frozen=True)
class OpenJournal:
    apply_id: str
    plan_id: str | None
    owner: str | None
    started: dt.datetime | None
    steps_done: int
    ops: int
    unrestored: tuple[str, ...]  # pauses with no matching restore: "collection app.x", ...


@dataclass(frozen=True)
class DatabaseStatus:
    """A database a policy manages: its primary shard (home of its unsharded collections)."""

    name: str
    primary: str
    zones: tuple[str, ...]  # zones the primary shard carries


@dataclass(frozen=True)
class DrainStatus:
    """A shard being drained: what it still holds (read live), what keeps its drain from
    progressing, and when the balancer is forecast to have emptied it."""

    drain: ShardDrain
    blockers: tuple[Blocker, ...] = ()
    eta: dt.datetime | None = None  # the balancer route's finish (forecast/drain.py)
    eta_note: str = ""  # why there is no ETA (never finishes, not forecast)

    @property
    def blocked(self) -> bool:
        return bool(self.blockers)


@dataclass(frozen=True)
class StatusReport:
    uri: str
    version: str
    balancer: BalancerState
    shards: tuple[ShardStatus, ...]
    collections: tuple[CollectionStatus, ...]
    lease: LeaseState | None = None
    journals: tuple[OpenJournal, ...] = ()
    notes: tuple[str, ...] = ()  # what could not be read, and why
    own_state_read: bool = True  # False: zonectl's lease and journals could not be read
    # With a POLICY argument: managed databases, and where pinned unsharded collections live
    # and which pattern each namespace came from (the plan's own notes).
    databases: tuple[DatabaseStatus, ...] = ()
    placements: tuple[str, ...] = ()
    # Reshardings in flight, as $currentOp reports them (zonectl/mongo/reshard_read.py).
    reshardings: tuple[ReshardProgress, ...] = ()
    # Balancer settings stored or named by the policy (zonectl/plan/settings_view.py).
    settings: tuple[SettingLine, ...] = ()
    # Each shard draining in config.shards (model/shard_lifecycle.py ShardDrain).
    drains: tuple[DrainStatus, ...] = ()
    # Each shard's volume now and after what the cluster still has to move (None: not
    # read; `notes` say why); session/status_disk.py.
    disk: CapacityReport | None = None

    @property
    def compliant(self) -> bool:
        return all(c.compliant for c in self.collections)


# ------------------------------------------------------------------------------- JSON


def _ejson(value: Any) -> Any:
    """Relaxed Extended JSON v2, the form mongosh and mongoexport print."""
    return json.loads(json_util.dumps(value, json_options=json_util.RELAXED_JSON_OPTIONS))


def _chunk_json(ref: ChunkRef | None) -> Any:
    if ref is None:
        return None
    return {"min": _ejson(ref.min), "max": _ejson(ref.max), "shard": ref.shard, "zone": ref.zone}


def _when(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def status_document(report: StatusReport) -> dict[str, Any]:
    return {
        "format_version": FORMAT_VERSION,
        "cluster": {"uri": report.uri, "version": report.version},
        "compliant": report.compliant,
        "settings": [
            {
                "name": x.name,
                "live": x.live,
                "state": x.state,
                "wanted": x.wanted,
                "stored": x.stored,
            }
            for x in report.settings
        ],
        "balancer": {
            "mode": report.balancer.mode,
            "enabled": report.balancer.enabled,
            "activeWindow": dict(report.balancer.active_window)
            if report.balancer.active_window
            else None,
            # In force (FCV 8.3+): then MongoDB ignores activeWindow.
            "activeWindowDOW": [dict(d) for d in report.balancer.day_windows] or None,
            "inBalancerRound": report.balancer.in_round,
            "numBalancerRounds": report.balancer.rounds,
        },
        "shards": [
            {
                "id": s.id,
                "host": s.host,
                "zones": list(s.zones),
                "draining": s.draining,
                "chunks": s.chunks,
                "bytes": s.bytes,
            }
            for s in report.shards
        ],
        "namespaces": [_collection_json(c) for c in report.collections],
        "lease": None
        if report.lease is None
        else {
            "holder": report.lease.holder,
            "expires": _when(report.lease.expires),
            "expired": report.lease.expired,
        },
        "unfinishedApplies": [
            {
                "applyId": j.apply_id,
                "planId": j.plan_id,
                "owner": j.owner,
                "started": _when(j.started),
                "stepsDone": j.steps_done,
                "ops": j.ops,
                "unrestored": list(j.unrestored),
            }
            for j in report.journals
        ],
        "notes": list(report.notes),
        "reshardings": [
            {
                "ns": r.namespace,
                "state": r.state,
                "bytesCopied": r.bytes_copied,
                "bytesToCopy": r.bytes_to_copy,
                "elapsedSecs": r.elapsed_s,
                "remainingSecsEstimate": r.remaining_s,
            }
            for r in report.reshardings
        ],
        "drains": [drain_json(d) for d in report.drains],
        "disk": capacity_to_doc(report.disk) if report.disk is not None else None,
        **(
            {
                "databases": [
                    {"name": d.name, "primary": d.primary, "zones": list(d.zones)}
                    for d in report.databases
                ],
                "placements": list(report.placements),
            }
            if report.databases or report.placements
            else {}
        ),
    }


def drain_json(d: DrainStatus) -> dict[str, Any]:
    """A drain: remaining chunks and bytes (in total and per collection), jumbo chunks,
    unsharded collections and database primaries left, orphans, ETA and blockers."""
    drain = d.drain
    return {
        "shard": drain.shard,
        "remaining": {
            "chunks": drain.chunks,
            "bytes": drain.bytes,
            "estimatedRemainingBytes": drain.estimated_remaining_bytes,
            "jumboChunks": len(drain.jumbo),
            "collections": [
                {
                    "namespace": c.namespace,
                    "chunks": c.chunks,
                    "bytes": c.bytes,
                    "jumbo": [
                        {"min": _ejson(j.min), "max": _ejson(j.max), "bytes": j.bytes}
                        for j in c.jumbo
                    ],
                }
                for c in drain.collections
            ],
            "unshardedCollections": list(drain.unsharded),
            "databases": list(drain.databases),
        },
        "orphans": {"documents": drain.orphan_docs, "bytes": drain.orphan_bytes},
        "eta": _when(d.eta),
        "etaNote": d.eta_note or None,
        "blocked": d.blocked,
        "blockers": [
            {"code": b.code, "message": b.message, "fix": b.fix, "refuses": b.refuses}
            for b in d.blockers
        ],
    }


def _collection_json(c: CollectionStatus) -> dict[str, Any]:
    return {
        "namespace": c.namespace,
        "sharded": c.sharded,
        "key": _ejson(c.key) if c.key is not None else None,
        "balancing": c.balancing,
        "ranges": [{"zone": r.zone, "min": _ejson(r.min), "max": _ejson(r.max)} for r in c.ranges],
        "chunks": c.chunks,
        "distribution": dict(sorted(c.per_shard.items())),
        "compliance": {
            "compliant": c.compliant,
            "chunksOutsideZone": c.outside_zone,
            "bytesOutsideZoneEstimate": c.outside_bytes,
            "chunksStraddlingBoundary": c.straddling,
            "jumboChunks": c.jumbo,
            "zonesWithoutShard": list(c.zones_without_shard),
            "firstOutsideZone": _chunk_json(c.first_outside),
            "firstStraddling": _chunk_json(c.first_straddling),
        },
        "balancerCollectionStatus": _ejson(dict(c.server)) if c.server is not None else None,
        "balancerCollectionStatusNote": c.server_note,
        "explain": explain_json(c.explained),
    }


def render_status_json(report: StatusReport) -> str:
    return dumps_indented(status_document(report)) + "\n"
