"""The pipeline `plan` runs, once, on one open connection: read the cluster, expand the
policy's patterns, plan, attach impacts, run the plan checks, then forecast the data
movement from the layout after the plan. apply and rotate reuse its steps."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zonectl.analyze.plan_rules import route_hint
from zonectl.forecast.collection_moves import moves_of, with_collection_moves
from zonectl.forecast.explain_hint import with_explain_hint
from zonectl.forecast.report import Forecast
from zonectl.forecast.reshard import recommend
from zonectl.forecast.settings import planned_chunk_sizes, throttle_notes
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.mongo.chunk_sizes import PLAN_MEASURED as PLAN_MEASURED
from zonectl.mongo.chunk_sizes import ChunkSizes
from zonectl.mongo.connect import Connection
from zonectl.mongo.footprint import Footprint
from zonectl.mongo.forecast_read import range_key
from zonectl.plan.plan import Plan
from zonectl.session.after import state_after
from zonectl.session.boundaries import window_boundaries
from zonectl.session.capacity import with_capacity
from zonectl.session.checks import Ranges, assigned_ranges, with_impacts, with_plan_checks
from zonectl.session.forecast import ForecastFlags, drains_of, read_forecast, with_drains
from zonectl.session.hot_zones import with_hot_zone_warnings
from zonectl.session.policy_plan import read_policy_plan


@dataclass(frozen=True)
class Planned:
    plan: Plan  # impacts attached, plan checks' warnings added
    actual: ClusterState  # the live state read
    desired: DesiredState  # the policy with its patterns expanded
    assigned: Ranges  # the ranges the plan assigns (session/checks.assigned_ranges)


@dataclass(frozen=True)
class PlanRun:
    plan: Plan
    forecast: Forecast
    footprint: dict[str, Any]  # the commands sent, by kind; which chunk sizes were measured


def read_plan(
    conn: Connection,
    desired: DesiredState,
    boundaries: Mapping[str, Any],
    at: dt.datetime,
    namespaces: list[str] | None,
    sizes: ChunkSizes,
) -> Planned:
    """Read, expand namespace patterns, plan, attach impact estimates (range ops from
    config.chunks, moveCollection ops from collStats), and add the cluster rules' warnings
    (docs/analyze.md: ZA201 jumbo chunks a new range strands, ZA202 most of a collection
    moving at once)."""
    policy = read_policy_plan(conn, desired, at, namespaces=namespaces, boundaries=boundaries)
    resolved, actual = policy.resolved, policy.resolved.actual
    if resolved.read is not None:  # its config.collections entries, not read again
        sizes.know(resolved.read)
    plan = with_impacts(conn, actual, policy.plan, sizes)
    if policy.next_tick:
        plan = dataclasses.replace(plan, valid_until=policy.next_tick)
    # once, for the plan checks' reads and the forecast's (the steps below change no op)
    assigned = assigned_ranges(plan)
    plan = with_plan_checks(conn, plan, actual, resolved.desired, sizes.batch, assigned)
    plan, actual = with_capacity(conn, actual, plan, resolved.desired)
    plan = with_hot_zone_warnings(conn, actual, plan, resolved.desired, at)
    return Planned(plan, actual, resolved.desired, assigned)


def build_plan(
    conn: Connection,
    desired: DesiredState,
    boundaries: Mapping[str, Any],
    at: dt.datetime,
    namespaces: list[str] | None,
) -> Plan:
    """The plan alone (see `read_plan`), with its own size source."""
    return read_plan(conn, desired, boundaries, at, namespaces, ChunkSizes(conn)).plan


def plan_and_forecast(
    conn: Connection,
    desired: DesiredState,
    given: dt.datetime | None,
    namespaces: list[str] | None,
    flags: ForecastFlags,
    *,
    footprint: Footprint,
    measure: int = PLAN_MEASURED,
) -> PlanRun:
    """The plan, the forecast of the data movement it causes, and the plan's server
    footprint (`footprint`: the listener the connection was opened with). Windows are
    placed at --at when `given`, else at the run's clock (`Connection.local`: this host's,
    or a sandbox's own, so `sandbox:?now=` pins the plan); the forecast starts at --at when
    given, else at the cluster's now."""
    at = given or conn.local()
    boundaries, next_tick = window_boundaries(desired, at)
    # one size for the impact lines and the forecast; one batch for their chunk reads
    sizes = ChunkSizes(conn, max_measured=measure)
    planned = read_plan(conn, desired, boundaries, at, namespaces, sizes)
    plan = planned.plan
    sizes.planned_mb, sizes.planned_ns_mb = planned_chunk_sizes(plan.ops)
    forecast = _forecast(sizes, planned, namespaces, flags, now=given or conn.wall())
    spent = {**footprint.snapshot(), "chunk_sizes": sizes.tally.as_dict()}
    if next_tick is not None and (plan.valid_until is None or next_tick < plan.valid_until):
        plan = dataclasses.replace(plan, valid_until=next_tick)
    forecast = with_collection_moves(forecast, moves_of(plan))
    forecast = with_drains(forecast, drains_of(plan.ops), planned.actual, sizes, plan.ops)
    forecast = with_explain_hint(forecast)
    return PlanRun(_with_route_hints(plan, forecast), forecast, spent)


def _forecast(
    sizes: ChunkSizes,
    planned: Planned,
    namespaces: list[str] | None,
    flags: ForecastFlags,
    *,
    now: dt.datetime,
) -> Forecast:
    """The forecast against the zone layout once the plan has run, read where it changes."""
    plan, actual = planned.plan, planned.actual
    after = state_after(plan, actual, planned.desired, namespaces)
    changed = {
        ns: {range_key(lo, hi) for lo, hi in ranges} for ns, ranges in planned.assigned.items()
    }
    forecast = read_forecast(
        sizes,
        after.ranges,
        after.shard_zones,
        flags,
        now=now,
        window=after.window,
        day_windows=after.day_windows,
        defragmenting=after.defragmenting,
        balancer_enabled=after.balancer_enabled,
        shards=[s.id for s in actual.shards],
        changed=changed,
        no_balance=after.no_balance,
        rezoned=_rezoned(plan, after.ranges),
    )
    said = throttle_notes(actual, plan.ops) if forecast.namespaces else []
    return dataclasses.replace(forecast, notes=(*forecast.notes, *said))


def _rezoned(plan: Plan, ranges: Mapping[str, Any]) -> frozenset[str]:
    """Namespaces with a range in a zone that gains or loses a shard in this plan."""
    changes = [op.membership_change() for op in plan.ops]
    zones = {change.zone for change in changes if change is not None}
    return frozenset(ns for ns, rs in ranges.items() if any(r[2] in zones for r in rs))


def _with_route_hints(plan: Plan, forecast: Forecast) -> Plan:
    """ZA202 names the reshard route, with its forecast, where that route is the fastest."""
    eager = {n.ns: n for n in forecast.namespaces}
    hints = {
        r.ns: route_hint(r.ns, r.seconds, eager[r.ns].eager_s)
        for r in forecast.reshard
        if r.ns in eager and recommend(eager[r.ns].eager_s, eager[r.ns].balancer_s, r) == "reshard"
    }
    if not hints:
        return plan
    warnings = tuple(
        w + next((h for ns, h in hints.items() if "ZA202" in w and ns in w), "")
        for w in plan.warnings
    )
    return dataclasses.replace(plan, warnings=warnings)
