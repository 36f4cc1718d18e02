"""`zonectl validate`: check policy files offline and report every problem at file:line:col,
as text (stderr), JSON or GitHub workflow annotations (stdout). Exit 0 valid, 3 invalid.
`--each` checks every path as a policy of its own (a folder of independent examples)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from zonectl.cli.artifact import emit, out_option
from zonectl.cli.error_boundary import guarded
from zonectl.diagnostics import Diagnostic, Severity
from zonectl.errors import ExitCode, InvalidPolicyError
from zonectl.model.desired import DesiredState
from zonectl.render.inert import terminal, workflow_data, workflow_property
from zonectl.render.summary import plural

FORMAT_VERSION = 1
# Problems that arise from merging files that were never one policy: a second balancer,
# shard or namespace, or YAML files that are no policies at all (sandbox cluster files).
_TWICE = {"ZP130", "ZP131", "ZP132"}
_NOT_POLICY = {"ZP113", "ZP114"}
_EACH_HINT = (
    "  hint: every file named, and every *.yaml under a directory, is merged into one "
    "policy; `zonectl validate --each PATH...` checks each path as a policy of its own"
)


@dataclass(frozen=True)
class _Checked:
    """One policy's outcome: its diagnostics, and its DesiredState when it is valid."""

    label: str
    diagnostics: list[Diagnostic]
    desired: DesiredState | None


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
    each: Annotated[
        bool,
        typer.Option(
            "--each",
            help="Check each PATH as a policy of its own instead of merging them all into "
            "one; a directory stays one policy (its files merged). JSON: one report per "
            "path under `policies`.",
        ),
    ] = False,
) -> int:
    """Validate policy files: schema, shard-key bounds, overlaps, zones, firehose, balancer.

    The files named, and every *.yaml under a directory, form one policy, as plan and apply
    read them. A folder of independent policies (policies/examples/ holds one policy per
    file, with sandbox cluster files in clusters/) is checked with --each:
    `zonectl validate --each policies/demo policies/examples/*.yaml`.

    Warnings do not fail validation. Exit 0 when valid (with --each: every path), 3 when
    any error is found.
    """
    groups = [[p] for p in paths] if each else [list(paths)]
    checked = [_check(group, each) for group in groups]
    _emit(fmt, checked, out, each)
    valid = all(c.desired is not None for c in checked)
    return int(ExitCode.OK if valid else ExitCode.INVALID_POLICY)


def _check(paths: list[Path], labelled: bool) -> _Checked:
    import os

    from zonectl.environment import Settings
    from zonectl.policy import load_policy

    own = Settings.from_environ(os.environ).database  # no namespace pattern may name it
    label = f"{paths[0]}: " if labelled else ""
    try:
        loaded = load_policy(list(paths), own_database=own)
    except InvalidPolicyError as exc:
        return _Checked(label, exc.diagnostics, None)
    return _Checked(label, loaded.diagnostics, loaded.desired)


def _emit(fmt: Format, checked: list[_Checked], out: Path | None, each: bool) -> None:
    if fmt is Format.json:
        if each:
            report: dict[str, Any] = {
                "format_version": FORMAT_VERSION,
                "valid": all(c.desired is not None for c in checked),
                "policies": [
                    {"path": c.label.removesuffix(": "), **json_report(c.diagnostics, c.desired)}
                    for c in checked
                ],
            }
        else:
            report = json_report(checked[0].diagnostics, checked[0].desired)
        emit(json.dumps(report, indent=2) + "\n", out)
    elif fmt is Format.github:
        emit("".join(f"{github_annotation(d)}\n" for c in checked for d in c.diagnostics), out)
    elif out is not None:
        lines = [line for c in checked for d in c.diagnostics for line in _inert_lines(d)]
        emit("".join(f"{line}\n" for line in lines), out)
    else:
        for c in checked:
            for diagnostic in c.diagnostics:
                for line in _inert_lines(diagnostic):
                    typer.echo(line, err=True)
    for c in checked:
        if fmt is Format.text and not each and c.desired is None and _merged_apart(c):
            typer.echo(_EACH_HINT, err=True)
        typer.echo(f"zonectl: {terminal(c.label)}{summary(c.diagnostics, c.desired)}", err=True)


def _merged_apart(checked: _Checked) -> bool:
    """Errors that files merged from several places give when they are separate policies."""
    codes = {d.code for d in checked.diagnostics}
    not_policies = {d.position.file for d in checked.diagnostics if d.code in _NOT_POLICY}
    return bool(codes & _TWICE) or len(not_policies) > 1


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
