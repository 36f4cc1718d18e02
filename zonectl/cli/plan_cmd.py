"""`zonectl plan`: parse the options, run zonectl.session.plan on one connection, render the
plan and its forecast."""

from __future__ import annotations

import datetime as dt
import os
import sys
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from zonectl.cli.annotations import github_warnings
from zonectl.cli.artifact import emit, out_option
from zonectl.cli.collector import paused_collector
from zonectl.cli.common import load_desired, parse_at, uri_option, uri_origin, warn
from zonectl.cli.connection import open_cluster
from zonectl.cli.error_boundary import guarded, stderr
from zonectl.cli.fleet.context import FleetSpec
from zonectl.cli.fleet.options import fleet_command
from zonectl.cli.forecast_wiring import (
    balancer_tz_option,
    copy_rate_option,
    parallel_forecast_option,
    parse_forecast_flags,
    with_policy_timezone,
)
from zonectl.cli.ns_option import namespace_option
from zonectl.environment import Settings
from zonectl.errors import ExitCode, UsageError
from zonectl.forecast.report import Forecast
from zonectl.plan.plan import Plan
from zonectl.plan.serialize import plan_to_doc
from zonectl.render.forecast import (
    forecast_dict,
    render_forecast_markdown,
    render_forecast_text,
)
from zonectl.render.inert import json_text
from zonectl.render.json_indent import dumps_indented
from zonectl.session.listeners import Footprint
from zonectl.session.plan import PLAN_MEASURED, plan_and_forecast


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
@paused_collector  # a run that ends by itself (zonectl.cli.collector)
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
        namespace_option(
            "Plan only these namespaces (repeatable): their range and balancing ops and "
            "the memberships their new ranges need; no membership removals or balancer settings.",
            scope="the policy names",
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
    counter = Footprint()
    with open_cluster(uri, uri_origin(uri), listeners=[counter]) as conn:
        run = plan_and_forecast(
            conn,
            desired,
            given,
            namespaces or None,
            flags,
            footprint=counter,
            measure=measure_chunks,
        )
    plan, forecast, footprint = run.plan, run.forecast, run.footprint
    for message in plan.warnings:
        warn(message)
    if save_plan is not None:
        emit(plan_document(plan, forecast, footprint), save_plan)
        stderr.print(f"plan {plan.plan_id} saved to {save_plan}", markup=False)
    fmt = fmt or Format.text
    if fmt is Format.github:
        from zonectl.render.text import render_text  # each view imported when it is asked for

        stderr.print_text(render_text(plan, color=False))
        emit(github_warnings(plan.warnings), out)
    else:
        color = out is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ
        emit(_render(plan, fmt, forecast, footprint, color=color), out)
    if detailed_exitcode and plan.has_changes:
        return int(ExitCode.CHANGES_PENDING)
    return int(ExitCode.OK)


def plan_document(
    plan: Plan, forecast: Forecast, footprint: Mapping[str, Any] | None = None
) -> str:
    """The plan's JSON document (what `--save-plan` saves and `--format json` prints), with
    the forecast under `forecast` and what reading the cluster cost under
    `server_footprint`: informational, `apply --plan` ignores both."""
    # The document render_json prints, built once (not printed, parsed and printed again)
    doc = plan_to_doc(plan)
    doc["forecast"] = forecast_dict(forecast)
    if footprint is not None:
        doc["server_footprint"] = dict(footprint)
    return json_text(dumps_indented(doc, ensure_ascii=False)) + "\n"


def _render(
    plan: Plan, fmt: Format, forecast: Forecast, footprint: Mapping[str, Any], *, color: bool
) -> str:
    # Each view's module is imported when it is asked for: a JSON plan loads none of them.
    if fmt is Format.json:
        return plan_document(plan, forecast, footprint)
    if fmt is Format.markdown:
        from zonectl.render.markdown import render_markdown

        return render_markdown(plan, _moves(forecast)) + render_forecast_markdown(forecast)
    if fmt is Format.html:
        from zonectl.render.html import render_plan_html

        return render_plan_html(plan, forecast)
    from zonectl.render.text import render_text

    text = render_text(plan, color=color, moves=_moves(forecast))
    return text + "\n" + render_forecast_text(forecast)


def _moves(forecast: Forecast) -> tuple[int, int]:
    """The forecast's chunks and bytes, for the summary line where no op says them."""
    return forecast.chunks, forecast.bytes
