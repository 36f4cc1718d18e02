"""`zonectl plan`: read the live cluster, diff it against the policy, print the plan."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import sys
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from zonectl.analyze.plan_rules import plan_findings, route_hint
from zonectl.cli.annotations import finding_warning, github_warnings
from zonectl.cli.artifact import emit, out_option
from zonectl.cli.boundary import guarded, stderr
from zonectl.cli.common import (
    load_desired,
    parse_at,
    uri_option,
    uri_origin,
    warn,
    window_boundaries,
)
from zonectl.cli.fleet.context import FleetSpec
from zonectl.cli.fleet.options import fleet_command
from zonectl.cli.forecast_wiring import (
    ForecastFlags,
    balancer_tz_option,
    copy_rate_option,
    parallel_forecast_option,
    parse_forecast_flags,
    read_forecast,
    with_policy_timezone,
)
from zonectl.cli.ns_option import UNKNOWN_HELP
from zonectl.cli.plan_after import state_after
from zonectl.cli.policy_plan import read_policy_plan
from zonectl.errors import ExitCode, UsageError
from zonectl.forecast.collection_moves import moves_of, with_collection_moves
from zonectl.forecast.report import Forecast
from zonectl.forecast.reshard import recommend
from zonectl.forecast.settings import planned_chunk_sizes, throttle_notes
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.mongo import Connection, connect, read_impacts
from zonectl.mongo.analyze_read import read_plan_checks
from zonectl.mongo.chunk_sizes import PLAN_MEASURED, ChunkSizes
from zonectl.mongo.footprint import Footprint
from zonectl.mongo.forecast_read import range_key
from zonectl.mongo.reshard_read import read_reshard_impacts
from zonectl.mongo.unsharded_read import read_move_impacts
from zonectl.plan.plan import Plan
from zonectl.render import render_json, render_markdown, render_text
from zonectl.render.forecast import (
    forecast_dict,
    render_forecast_markdown,
    render_forecast_text,
)
from zonectl.render.html import render_plan_html
from zonectl.render.inert import json_text
from zonectl.settings import Settings


class Format(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"
    github = "github"
    html = "html"


def check_out(options: Mapping[str, Any]) -> None:
    """`plan -o FILE` once saved the JSON plan for apply whatever --format printed; now -o
    writes what --format names. Without --format the old meaning is likely: refuse it."""
    if options.get("out") is not None and options.get("fmt") is None:
        raise UsageError(
            "plan -o FILE writes what --format names, and no --format was given",
            hint="to save the plan for `apply --plan FILE` use --save-plan FILE (or "
            "--format json -o FILE); to write the text plan use --format text -o FILE",
        )


@guarded
@fleet_command(FleetSpec("plan", files={"save_plan": ".json"}, precheck=check_out))
def command(
    paths: Annotated[list[Path], typer.Argument(help="Policy files or directories.")],
    uri: Annotated[str | None, uri_option()] = None,
    at: Annotated[
        str | None,
        typer.Option(help="Evaluate firehose windows at this instant (ISO 8601 with offset)."),
    ] = None,
    out: Annotated[Path | None, out_option()] = None,
    save_plan: Annotated[
        Path | None,
        typer.Option(
            "--save-plan",
            metavar="FILE",
            help="Also save the plan as versioned JSON for `apply --plan FILE`, whatever "
            "--format prints.",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        Format | None,
        typer.Option(
            "--format",
            "-f",
            help="Output format (default: text); github: the plan's warnings as workflow "
            "annotations (the plan itself goes to stderr); html: a self-contained page "
            "with the forecast's burn-down.",
            show_default=False,
        ),
    ] = None,
    detailed_exitcode: Annotated[
        bool, typer.Option("--detailed-exitcode", help="Exit 4 when the plan has changes.")
    ] = False,
    namespaces: Annotated[
        list[str] | None,
        typer.Option(
            "--namespace",
            "-n",
            help="Plan only these namespaces (repeatable): their range and balancing ops and "
            "the memberships their new ranges need; no membership removals or balancer settings."
            + UNKNOWN_HELP.format(scope="the policy names"),
        ),
    ] = None,
    copy_rate: Annotated[str | None, copy_rate_option()] = None,
    parallel: Annotated[int | None, parallel_forecast_option()] = None,
    balancer_tz: Annotated[str | None, balancer_tz_option()] = None,
    measure_chunks: Annotated[
        int,
        typer.Option(
            "--measure-chunks",
            min=0,
            help="Measure at most N moving chunks with dataSize (one command each, run by "
            "the shards); the others are estimated from collection statistics. The plan "
            "says which were measured.",
        ),
    ] = PLAN_MEASURED,
) -> int:
    """Show the admin commands that would bring the cluster to the policy.

    Reads config.shards, config.tags, config.collections and the balancer
    settings through a mongos. Impact counts are targeted range queries on
    config.chunks, never a full read. The plan goes to stdout; warnings and
    progress go to stderr.

    A forecast follows the plan: per namespace and in total, the chunks and
    bytes that must move once it is applied, and how long that takes by the
    balancer (rounds inside its active window, read in --balancer-tz) and by
    `apply --migrate --parallel N`, at the assumed --copy-rate.

    Exit codes: 0 no changes (or changes without --detailed-exitcode);
    4 changes pending with --detailed-exitcode; 1 runtime error, including
    a policy that cannot be planned against this cluster (unknown shard,
    shard-key mismatch, ...); 2 bad option (an unknown --namespace);
    3 invalid policy.

    Examples:

      zonectl plan policies/ --uri sandbox:

      zonectl plan policies/ --format markdown > plan.md

      zonectl plan policies/ --save-plan plan.json --detailed-exitcode

      zonectl plan policies/ --format html -o plan.html
    """
    given = parse_at(at, dt.datetime.now(dt.UTC)) if at else None
    flags = parse_forecast_flags(copy_rate, parallel, balancer_tz)
    desired = load_desired(paths)
    flags = with_policy_timezone(flags, desired, Settings.from_environ(os.environ).config_timezone)
    plan, forecast, footprint = _plan_and_forecast(
        uri, desired, given, namespaces or None, flags, measure=measure_chunks
    )
    for message in plan.warnings:
        warn(message)
    if save_plan is not None:
        emit(plan_document(plan, forecast, footprint), save_plan)
        stderr.print(f"plan {plan.plan_id} saved to {save_plan}", markup=False)
    fmt = fmt or Format.text
    if fmt is Format.github:
        stderr.print_text(render_text(plan, color=False))
        emit(github_warnings(plan.warnings), out)
    else:
        color = out is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ
        emit(_render(plan, fmt, forecast, footprint, color=color), out)
    if detailed_exitcode and plan.has_changes:
        return int(ExitCode.CHANGES_PENDING)
    return int(ExitCode.OK)


def build_plan(
    uri: str | None,
    desired: DesiredState,
    boundaries: Mapping[str, Any],
    at: dt.datetime,
    namespaces: list[str] | None,
) -> Plan:
    """The plan every command shares (see `_read_plan`)."""
    with connect(uri, origin=uri_origin(uri)) as conn:
        return _read_plan(conn, desired, boundaries, at, namespaces, ChunkSizes(conn))[0]


def _read_plan(
    conn: Connection,
    desired: DesiredState,
    boundaries: Mapping[str, Any],
    at: dt.datetime,
    namespaces: list[str] | None,
    sizes: ChunkSizes,
) -> tuple[Plan, ClusterState, DesiredState]:
    """Read, expand namespace patterns, plan, attach impact estimates (range ops from
    config.chunks, moveCollection ops from collStats), and add the cluster rules' warnings
    (docs/analyze.md: ZA201 jumbo chunks a new range strands, ZA202 most of a collection
    moving at once). Also returns the state read and the desired state after expansion."""
    policy = read_policy_plan(conn, desired, at, namespaces=namespaces, boundaries=boundaries)
    plan, resolved, actual = policy.plan, policy.resolved, policy.resolved.actual
    impacts = {
        **read_impacts(conn, actual, plan, sizes),
        **read_move_impacts(conn, plan),
        **read_reshard_impacts(conn, plan),
    }
    plan = plan.with_impacts(impacts)
    if policy.next_tick:
        plan = _valid_until(plan, policy.next_tick)
    jumbo, totals = read_plan_checks(conn, actual, assigned_ranges(plan), sizes.batch)
    checks = plan_findings(plan, actual, resolved.desired, jumbo, totals)
    if checks:
        warnings = tuple(finding_warning(where, f) for where, f in checks)
        plan = dataclasses.replace(plan, warnings=plan.warnings + warnings)
    return plan, actual, resolved.desired


def _plan_and_forecast(
    uri: str | None,
    desired: DesiredState,
    given: dt.datetime | None,
    namespaces: list[str] | None,
    flags: ForecastFlags,
    *,
    measure: int = PLAN_MEASURED,
) -> tuple[Plan, Forecast, dict[str, Any]]:
    """The plan, the forecast of the data movement it causes, and the plan's server
    footprint (the commands sent, by kind; which chunk sizes were measured), from one
    connection. Windows are placed at --at when `given`, else at the run's clock
    (`Connection.local`: this host's, or a sandbox's own, so `sandbox:?now=` pins the plan);
    the forecast starts at --at when given, else at the cluster's now."""
    counter = Footprint()
    with connect(uri, origin=uri_origin(uri), listeners=[counter]) as conn:
        at = given or conn.local()
        boundaries, next_tick = window_boundaries(desired, at)
        # one size for the impact lines and the forecast; one batch for their chunk reads
        sizes = ChunkSizes(conn, max_measured=measure)
        plan, actual, expanded = _read_plan(conn, desired, boundaries, at, namespaces, sizes)
        sizes.planned_mb, sizes.planned_ns_mb = planned_chunk_sizes(plan.ops)
        after = state_after(plan, actual, expanded, namespaces)
        changed = {
            ns: {range_key(lo, hi) for lo, hi in ranges}
            for ns, ranges in assigned_ranges(plan).items()
        }
        forecast = read_forecast(
            sizes,
            after.ranges,
            after.shard_zones,
            flags,
            now=given or conn.wall(),
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
        forecast = dataclasses.replace(forecast, notes=(*forecast.notes, *said))
        footprint = {**counter.snapshot(), "chunk_sizes": sizes.tally.as_dict()}
    if next_tick is not None and (plan.valid_until is None or next_tick < plan.valid_until):
        plan = _valid_until(plan, next_tick)
    forecast = with_collection_moves(forecast, moves_of(plan))
    return _with_route_hints(plan, forecast), forecast, footprint


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


def assigned_ranges(plan: Plan) -> dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]:
    """The ranges the plan assigns, per namespace: where its chunks are read one by one."""
    out: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for op in plan.ops:
        change = op.range_change()
        if change is not None and change.adds:
            out.setdefault(change.ns, []).append((dict(change.min), dict(change.max)))
    return out


def _valid_until(plan: Plan, tick: dt.datetime) -> Plan:
    return dataclasses.replace(plan, valid_until=tick)


def plan_document(
    plan: Plan, forecast: Forecast, footprint: Mapping[str, Any] | None = None
) -> str:
    """The plan's JSON document (what `--save-plan` saves and `--format json` prints), with
    the forecast under `forecast` and what reading the cluster cost under
    `server_footprint`: informational, `apply --plan` ignores both."""
    doc = json.loads(render_json(plan))
    doc["forecast"] = forecast_dict(forecast)
    if footprint is not None:
        doc["server_footprint"] = dict(footprint)
    return json_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"


def _render(
    plan: Plan, fmt: Format, forecast: Forecast, footprint: Mapping[str, Any], *, color: bool
) -> str:
    if fmt is Format.json:
        return plan_document(plan, forecast, footprint)
    if fmt is Format.markdown:
        return render_markdown(plan) + render_forecast_markdown(forecast)
    if fmt is Format.html:
        return render_plan_html(plan, forecast)
    return render_text(plan, color=color) + "\n" + render_forecast_text(forecast)
