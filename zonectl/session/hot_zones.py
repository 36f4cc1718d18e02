"""Whether each firehose window's hot zone holds it (ZA115, zonectl/analyze/rules_capacity.py)
for `analyze` and `plan`: per window PERIODS + 1 dataSize commands (its recent ingest,
zonectl/mongo/ingest_read.py), and one or two dbStats per database of the windows (its hot
shards' volumes, zonectl/mongo/volume_read.py)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection

from zonectl.analyze.rules_capacity import hot_zone_finding
from zonectl.model.capacity import ShardVolume
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.model.ingest import HotZoneInput
from zonectl.mongo.connect import Connection
from zonectl.mongo.ingest_read import read_ingest
from zonectl.mongo.volume_read import read_volumes
from zonectl.plan.plan import Plan
from zonectl.session.checks import finding_warning

Volumes = tuple[dict[str, ShardVolume] | None, str]


def read_hot_zones(
    conn: Connection,
    state: ClusterState,
    desired: DesiredState,
    now: dt.datetime,
    only: Collection[str] | None = None,
) -> dict[str, HotZoneInput | str]:
    """Firehose ns (sharded; of `only` when given) -> its ingest and volumes, or why not."""
    out: dict[str, HotZoneInput | str] = {}
    read: dict[str, Volumes] = {}
    for ns, cp in sorted(desired.collections.items()):
        live = state.collections.get(ns)
        if cp.firehose is None or live is None or (only is not None and ns not in only):
            continue
        ingest = read_ingest(conn, ns, live.key, cp.firehose, now)
        if isinstance(ingest, str):
            out[ns] = ingest
            continue
        db = ingest.database
        if db not in read:
            read[db] = read_volumes(conn, state, db)
        volumes, why = read[db]
        out[ns] = HotZoneInput(ingest, volumes) if volumes is not None else f"dbStats on {db} {why}"
    return out


def with_hot_zone_warnings(
    conn: Connection, actual: ClusterState, plan: Plan, desired: DesiredState, at: dt.datetime
) -> Plan:
    """The plan with a ZA115 warning per window whose hot zone (with the shards it has once
    the plan has run) cannot hold it, or that could not be checked."""
    windows = {ns for ns, cp in desired.collections.items() if cp.firehose is not None}
    if not windows:
        return plan
    holders: dict[str, list[str]] = {}
    for shard, zones in desired.shards.items():
        for zone in zones:
            holders.setdefault(zone, []).append(shard)
    found = read_hot_zones(conn, actual, desired, at, windows)
    warnings = []
    for ns, got in sorted(found.items()):
        fh = desired.collections[ns].firehose
        assert fh is not None
        hot = tuple(holders.get(fh.hot) or [s.id for s in actual.shards if fh.hot in s.zones])
        finding = hot_zone_finding(ns, fh, hot, got, desired)
        if finding is not None:
            warnings.append(finding_warning(fh.position, finding))
    if not warnings:
        return plan
    return dataclasses.replace(plan, warnings=(*plan.warnings, *warnings))
