"""`zonectl analyze`: shard-key and zone health rules against the live cluster (read-only)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from zonectl.analyze.render import render_json, render_markdown, render_text, summary
from zonectl.cli.artifact import emit, out_option
from zonectl.cli.candidate_keys import parse_candidates
from zonectl.cli.common import load_desired, uri_option, uri_origin
from zonectl.cli.connection import open_cluster
from zonectl.cli.error_boundary import guarded, stderr
from zonectl.cli.fleet.context import FleetSpec
from zonectl.cli.fleet.options import fleet_command
from zonectl.cli.ns_option import chooser, namespace_option
from zonectl.errors import ExitCode
from zonectl.model.desired import DesiredState
from zonectl.render.inert import terminal
from zonectl.session.analyze import AnalyzeRequest, analyze_cluster
from zonectl.session.namespaces import check_syntax


class Format(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"


@guarded
@fleet_command(FleetSpec("analyze"))
def command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Policy files or directories (optional): their namespaces are analyzed too, "
            "and their firehose windows and ranges are checked against the live keys."
        ),
    ] = None,
    uri: Annotated[str | None, uri_option()] = None,
    namespaces: Annotated[
        list[str] | None,
        namespace_option(
            "Analyze only these namespaces (repeatable).",
            scope="sharded or named by the policy",
        ),
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
    out: Annotated[Path | None, out_option()] = None,
    candidate: Annotated[
        list[str] | None,
        typer.Option(
            "--candidate",
            help="A shard key to put beside the live one of each --namespace, e.g. "
            "'{sessionId: 1}' (repeatable): characteristics where an index supports it, "
            "read/write distribution from the sampled queries (MongoDB 7.0+).",
        ),
    ] = None,
) -> int:
    """Check shard keys and zones against MongoDB's rules for them.

    For each sharded (or policy-named) collection: the key's shape,
    cardinality, frequency and monotonicity (analyzeShardKey, 7.0+), the
    read/write distribution of the sampled queries (7.0+, `sampling:`),
    jumbo chunks and their zones, per-shard balance inside each zone
    ($shardedDataDistribution, config.chunks), recent splits and migrations
    (config.changelog), and a firehose window's hot share and backlog. Each
    figure names its source and confidence; each finding has a stable rule
    id, a severity, the evidence and a one-sentence fix (docs/analyze.md).

    Read-only: analyze never changes the cluster.

    Exit codes: 0 analyzed (findings or not); 1 runtime error; 2 bad option
    (an unknown --namespace); 3 invalid policy.

    Examples:

      zonectl analyze --uri sandbox:

      zonectl analyze policies/ --uri "$ZONECTL_URI" --format markdown

      zonectl analyze policies/ --all -n 'logs.*'

      zonectl analyze -n app.sessions --candidate '{sessionId: 1}' --uri sandbox:
    """
    check_syntax(namespaces or ())
    candidates = parse_candidates(candidate or [], namespaces)
    desired: DesiredState | None = load_desired(paths) if paths else None
    request = AnalyzeRequest(
        desired, chooser(namespaces, with_policy=desired is not None), candidates
    )
    notes: list[str] = []
    try:
        with open_cluster(uri, uri_origin(uri)) as conn:
            report = analyze_cluster(conn, request, notes)
    finally:  # shown before an error too (an unknown --namespace)
        for note in notes:
            stderr.print(terminal(f"zonectl: {note}"), markup=False)  # one line
    render = {Format.json: render_json, Format.markdown: render_markdown}.get(fmt, render_text)
    emit(render(report), out)
    if fmt is not Format.text or out is not None:
        stderr.print(f"zonectl: {summary(report)}", markup=False)
    return int(ExitCode.OK)
