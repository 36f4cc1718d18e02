"""`zonectl validate`: check policy files offline and report every problem at file:line:col,
as text (stderr), JSON or GitHub workflow annotations (stdout). Exit 0 valid, 3 invalid."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from zonectl.cli.artifact import emit, out_option
from zonectl.cli.boundary import guarded
from zonectl.diagnostics import Diagnostic, Severity
from zonectl.errors import ExitCode, InvalidPolicyError
from zonectl.model.desired import DesiredState
from zonectl.render.inert import terminal, workflow_data, workflow_property
from zonectl.render.summary import plural

FORMAT_VERSION = 1


class Format(StrEnum):
    text = "text"
    json = "json"
    github = "github"


@guarded
def command(
    paths: Annotated[list[Path], typer.Argument(help="Policy files or directories.")],
    fmt: Annotated[
        Format,
        typer.Option("--format", "-f", help="text (stderr, or -o FILE), json or github (stdout)."),
    ] = Format.text,
    out: Annotated[Path | None, out_option()] = None,
) -> int:
    """Validate policy files: schema, shard-key bounds, overlaps, zones, firehose, balancer.

    Warnings do not fail validation. Exit 0 when valid, 3 when any error is found.
    """
    import os

    from zonectl.policy import load_policy
    from zonectl.settings import Settings

    desired: DesiredState | None = None
    own = Settings.from_environ(os.environ).database  # no namespace pattern may name it
    try:
        loaded = load_policy(list(paths), own_database=own)
    except InvalidPolicyError as exc:
        diagnostics = exc.diagnostics
    else:
        desired, diagnostics = loaded.desired, loaded.diagnostics
    _emit(fmt, diagnostics, desired, out)
    return int(ExitCode.OK if desired is not None else ExitCode.INVALID_POLICY)


def _emit(
    fmt: Format, diagnostics: list[Diagnostic], desired: DesiredState | None, out: Path | None
) -> None:
    if fmt is Format.json:
        emit(json.dumps(json_report(diagnostics, desired), indent=2) + "\n", out)
    elif fmt is Format.github:
        emit("".join(f"{github_annotation(d)}\n" for d in diagnostics), out)
    elif out is not None:
        emit("".join(f"{line}\n" for d in diagnostics for line in _inert_lines(d)), out)
    else:
        for diagnostic in diagnostics:
            for line in _inert_lines(diagnostic):
                typer.echo(line, err=True)
    typer.echo(f"zonectl: {summary(diagnostics, desired)}", err=True)


def _inert_lines(d: Diagnostic) -> list[str]:
    # A key or value quoted from the policy is shown escaped, each line on its own.
    return [terminal(line) for line in d.lines()]


def summary(diagnostics: list[Diagnostic], desired: DesiredState | None) -> str:
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    warnings = len(diagnostics) - errors
    counts = f"{plural(errors, 'error')}, {plural(warnings, 'warning')}"
    if desired is None:
        return f"policy is invalid: {counts}"
    ranges = sum(len(c.ranges) for c in desired.collections.values())
    return (
        f"policy is valid: {plural(len(desired.sources), 'file')}, "
        f"{plural(len(desired.shards), 'shard')}, "
        f"{plural(len(desired.collections), 'collection')}, "
        f"{plural(ranges, 'range')}; {counts}"
    )


def json_report(diagnostics: list[Diagnostic], desired: DesiredState | None) -> dict[str, Any]:
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    return {
        "format_version": FORMAT_VERSION,
        "valid": desired is not None,
        "errors": errors,
        "warnings": len(diagnostics) - errors,
        "files": list(desired.sources) if desired is not None else [],
        "digest": desired.digest if desired is not None else None,
        "diagnostics": [
            {
                "file": d.position.file,
                "line": d.position.line,
                "col": d.position.col,
                "severity": str(d.severity),
                "code": d.code,
                "message": d.message,
                "hint": d.hint,
            }
            for d in diagnostics
        ],
    }


def github_annotation(d: Diagnostic) -> str:
    """One workflow command: ::error file=...,line=...,col=...,title=ZP203::message"""
    level = "error" if d.severity is Severity.ERROR else "warning"
    props = [f"file={workflow_property(d.position.file)}"]
    if d.position.line > 0:
        props += [f"line={d.position.line}", f"col={d.position.col}"]
    props.append(f"title={workflow_property(d.code)}")
    text = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    return f"::{level} {','.join(props)}::{workflow_data(text)}"
