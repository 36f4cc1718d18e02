"""The status report (zonectl.render.status) built from what zonectl/mongo/status.py read:
per-namespace compliance and bytes, shard totals, the balancer, zonectl's lease and open
journals interpreted at the cluster's instant, and each namespace's explain state and
reasons (zonectl/session/status_explain.py)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection, Mapping
from typing import Any

from zonectl.explain.reasons import Explanation
from zonectl.forecast.report import Forecast
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.model.drain_blockers import WallClock, drain_blockers
from zonectl.mongo.chunk_scan import ChunkCompliance, Example
from zonectl.mongo.chunk_sizes import per_chunk
from zonectl.mongo.connect import Connection
from zonectl.mongo.lease import describe_holder
from zonectl.mongo.status import StatusRead, int_or_none, read_status
from zonectl.plan.settings_view import setting_lines
from zonectl.render.status import (
    BalancerState,
    ChunkRef,
    CollectionStatus,
    DrainStatus,
    LeaseState,
    OpenJournal,
    RangeStatus,
    ShardStatus,
    StatusReport,
)
from zonectl.session.status_disk import with_disk
from zonectl.session.status_explain import explain_status, server_views

Doc = Mapping[str, Any]


def read_status_report(
    conn: Connection,
    *,
    database: str,
    now: dt.datetime,
    namespaces: Collection[str] | None = None,
    layout: bool = False,
    config_tz: dt.tzinfo | None = None,
    desired: DesiredState | None = None,
) -> StatusReport:
    """The whole report. `namespaces` limits the per-namespace part (and the shard chunk
    totals) to those; unknown names are reported in `notes`. With `layout`, each sharded
    namespace also keeps where every chunk sits (a few bytes a chunk) for the pictures.
    `config_tz`: the config server's time zone, in which a drain's window is read;
    `desired`: the policy whose disk limits apply (session/status_disk.py)."""
    read = read_status(conn, database=database, now=now, namespaces=namespaces, layout=layout)
    return with_disk(conn, read, status_report(read, now, config_tz), desired)


def status_report(
    read: StatusRead, now: dt.datetime, config_tz: dt.tzinfo | None = None
) -> StatusReport:
    """The report of what was read; a lease is expired if it expires at or before `now`;
    a drain's window blocker only with `config_tz` (the window is that zone's wall clock)."""
    explained = explain_status(read, now, config_tz)
    read = dataclasses.replace(read, servers=server_views(read, explained))
    carried = frozenset(z for s in read.state.shards for z in s.zones)
    collections = tuple(_collection(read, ns, explained.get(ns), carried) for ns in read.names)
    servers = {c.namespace: c.server for c in collections}
    state = dataclasses.replace(
        read.state,
        collections={
            ns: dataclasses.replace(live, balancer_status=servers.get(ns))
            for ns, live in read.state.collections.items()
        },
    )
    return StatusReport(
        uri=read.uri,
        version=read.version,
        balancer=_balancer(state, read.balancer_status),
        shards=_shards(state, collections, read.owned),
        collections=collections,
        lease=_lease(read.lease, now),
        journals=tuple(_journal(h) for h in read.journals),
        # read.reshardings_note is left out, as it always was (the note list was copied
        # before the reshardings were read); reported to issue 38's lead.
        notes=read.notes,
        own_state_read=read.own_state_read,
        reshardings=read.reshardings,
        settings=setting_lines(state, None),
        drains=_drains(state, now, config_tz),
    )


def with_etas(drains: tuple[DrainStatus, ...], forecast: Forecast) -> tuple[DrainStatus, ...]:
    """Each drain with the balancer route's finish (forecast/drain.py): the instant, or why
    it never finishes; a drain the forecast left out has nothing left to move."""
    routes = {f.shard: f for f in forecast.drains}
    out = []
    for d in drains:
        f = routes.get(d.drain.shard)
        if f is None:
            out.append(dataclasses.replace(d, eta_note="nothing left to move"))
        elif f.balancer.seconds is None:
            why = f": {f.balancer.why_not}" if f.balancer.why_not else ""
            out.append(dataclasses.replace(d, eta_note=f"never by the balancer{why}"))
        else:
            out.append(dataclasses.replace(d, eta=f.at(f.balancer.seconds)))
    return tuple(out)


def _drains(
    state: ClusterState, now: dt.datetime, config_tz: dt.tzinfo | None
) -> tuple[DrainStatus, ...]:
    """Each draining shard with its blockers (model/drain_blockers.py); the ETA is the
    forecast's, added by the caller (session/status.py)."""
    clock = WallClock(now.astimezone(config_tz), str(config_tz)) if config_tz is not None else None
    return tuple(
        DrainStatus(drain, drain_blockers(state, drain, clock))
        for _, drain in sorted(state.drains.items())
        if drain.draining
    )


def _balancer(state: ClusterState, balancer_status: Doc | None) -> BalancerState:
    b = state.balancer
    return BalancerState(
        mode=b.mode if not b.stopped else "off",
        enabled=b.enabled,
        active_window=b.active_window,
        day_windows=b.day_windows,
        in_round=b.in_round,
        rounds=int_or_none(balancer_status.get("numBalancerRounds")) if balancer_status else None,
    )


def _shards(
    state: ClusterState,
    collections: tuple[CollectionStatus, ...],
    owned: Mapping[str, Mapping[str, int]] | None,
) -> tuple[ShardStatus, ...]:
    """Each shard with its chunks over the namespaces reported and the bytes it owns."""
    totals: dict[str, int] = {}
    for c in collections:
        for shard, n in c.per_shard.items():
            totals[shard] = totals.get(shard, 0) + n
    shard_bytes: dict[str, int] | None = None
    if owned is not None:
        shard_bytes = {}
        for per_shard in owned.values():
            for shard, n in per_shard.items():
                shard_bytes[shard] = shard_bytes.get(shard, 0) + n
    return tuple(
        ShardStatus(
            s.id,
            s.host,
            s.zones,
            s.draining,
            totals.get(s.id, 0),
            shard_bytes.get(s.id, 0) if shard_bytes is not None else None,
        )
        for s in state.shards
    )


def _collection(
    read: StatusRead, ns: str, explained: Explanation | None, carried: frozenset[str]
) -> CollectionStatus:
    """`carried`: the zones some shard carries."""
    live = read.ranges.get(ns, ())
    ranges = tuple(RangeStatus(r.zone, r.min, r.max) for r in live)
    orphan_zones = tuple(sorted({r.zone for r in live} - carried)) if live else ()
    doc, scan = read.entries.get(ns), read.scans.get(ns)
    if doc is None or scan is None:
        return CollectionStatus(ns, False, None, None, ranges, zones_without_shard=orphan_zones)
    server, server_note = read.servers.get(ns) or (None, None)
    owned = read.owned
    return CollectionStatus(
        namespace=ns,
        sharded=True,
        key=dict(doc["key"]),
        balancing=not bool(doc.get("noBalance", False)),
        ranges=ranges,
        chunks=scan.chunks,
        per_shard=dict(scan.per_shard),
        outside_zone=scan.outside_zone,
        straddling=scan.straddling,
        jumbo=scan.jumbo,
        first_outside=_ref(scan.first_outside),
        first_straddling=_ref(scan.first_straddling),
        zones_without_shard=orphan_zones,
        server=server,
        server_note=server_note,
        outside_bytes=None if owned is None else _outside_bytes(scan, owned.get(ns, {})),
        owned_bytes=None if owned is None else dict(owned.get(ns, {})),
        layout=read.layouts.get(ns),
        explained=explained,
    )


def _outside_bytes(scan: ChunkCompliance, owned: Mapping[str, int]) -> int:
    """Bytes of the out-of-zone chunks, each sized as the forecast sizes a chunk it did not
    measure (chunk_sizes.per_chunk: its shard's owned bytes over its chunk count):
    config.chunks carries no reliable per-chunk size (reference §2.3),
    $shardedDataDistribution does per shard."""
    total = 0
    for shard, outside in scan.outside_per_shard.items():
        total += per_chunk(owned.get(shard, 0), scan.per_shard.get(shard, 0)) * outside
    return total


def _ref(example: Example | None) -> ChunkRef | None:
    if example is None:
        return None
    return ChunkRef(example.min, example.max, example.shard, example.zone)


def _lease(holder: Doc | None, now: dt.datetime) -> LeaseState | None:
    if holder is None:
        return None
    expires = holder.get("expires")
    expires = _aware(expires) if isinstance(expires, dt.datetime) else None
    acquired = holder.get("acquired")
    return LeaseState(
        describe_holder(holder),
        expires,
        expires is not None and expires <= now,
        _aware(acquired) if isinstance(acquired, dt.datetime) else None,
    )


def _journal(header: Doc) -> OpenJournal:
    events = list(header.get("events") or ())
    paused: dict[tuple[str, str | None], bool] = {}
    for e in events:
        where = (str(e.get("scope")), e.get("ns"))
        if e.get("type") == "pause":
            paused[where] = True
        elif e.get("type") == "restored":
            paused.pop(where, None)
    unrestored = tuple(f"{scope} {ns}" if ns else scope for scope, ns in sorted(paused, key=str))
    started = header.get("started")
    return OpenJournal(
        apply_id=str(header.get("_id")),
        plan_id=str(header["plan_id"]) if header.get("plan_id") else None,
        owner=str(header["owner"]) if header.get("owner") else None,
        started=_aware(started) if isinstance(started, dt.datetime) else None,
        steps_done=sum(1 for e in events if e.get("type") == "step" and e.get("status") == "done"),
        ops=len(header.get("ops") or ()),
        unrestored=unrestored,
    )


def _aware(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
