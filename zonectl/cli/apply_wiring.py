"""What `apply`, `rotate` and `recover` share on the command line: the `-v` command echo,
durations like `90s`/`10m`, the confirmation prompt (apply's ports are
zonectl.session.ports)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from typing import Any

import typer

from zonectl.apply.run import ApplyResult, Prepared, Preview
from zonectl.cli.error_boundary import stderr
from zonectl.errors import UsageError, ZonectlError
from zonectl.render.summary import plural
from zonectl.session.listeners import CommandEcho
from zonectl.session.listeners import echo_listeners as session_echo


def echo_listeners(verbose: bool) -> list[CommandEcho]:
    """`-v`: a listener printing every command sent on stderr; none without `-v`."""
    return session_echo(lambda line: stderr.print(line, markup=False)) if verbose else []


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")


def parse_duration(text: str | None, option: str) -> float | None:
    """Seconds from `90`, `90s`, `500ms`, `10m`, `1h`; None when absent."""
    if text is None:
        return None
    match = _DURATION.match(text)
    if not match:
        raise UsageError(f"{option}: {text!r} is not a duration like 90s, 10m or 1h")
    scale = {"ms": 0.001, "s": 1, None: 1, "m": 60, "h": 3600}[match.group(2)]
    return float(match.group(1)) * scale


def ops_done(result: ApplyResult) -> str:
    """`20/20 op(s) and 3 splits`: the plan's ops, then the splits --migrate sent at zone
    boundaries, which print a "done" line each but are not ops of the plan."""
    splits = sum(m.splits for m in result.migrations)
    text = f"{result.ops_done}/{result.ops_total} op(s)"
    return text + f" and {plural(splits, 'split')}" if splits else text


def make_confirm(yes: bool, render: Any) -> Any:
    """The confirmation step: shows the plan on stderr, then asks unless `--yes`."""

    def confirm(prepared: Prepared, previews: Sequence[Preview]) -> bool:
        stderr.print_text(render(prepared.plan), end="")
        for p in previews:
            stderr.print(
                f"--migrate {p.ns}: {plural(len(p.splits), 'split')}, "
                f"{plural(p.moves.violating, 'out-of-zone chunk')} to move now "
                f"({plural(len(p.moves.moves), 'command')})",
                markup=False,
            )
        if yes:
            return True
        if not sys.stdin.isatty():
            raise ZonectlError(
                "refusing to apply without confirmation: stdin is not a terminal",
                hint="review with `zonectl plan`, then rerun with --yes",
            )
        return bool(typer.confirm("Apply these changes?", default=False, err=True))

    return confirm


def dumps(value: Any) -> str:
    return json.dumps(value, indent=2, default=str)
