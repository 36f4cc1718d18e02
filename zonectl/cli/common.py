"""Options and steps several commands share: the cluster URI, policy loading, `--at`,
firehose boundaries. Output goes to stderr here; stdout is the command's artifact."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from zonectl.cli.error_boundary import stderr
from zonectl.errors import UsageError, redact
from zonectl.model.desired import DesiredState
from zonectl.render.inert import terminal

URI_HELP = (
    "MongoDB URI of a mongos (TLS, authSource, timeouts... as URI options), or 'sandbox:' "
    "for the built-in simulated cluster. Default: $ZONECTL_URI. Passwords are never printed."
)


def uri_option() -> Any:
    """For `Annotated[str | None, uri_option()] = None`."""
    return typer.Option("--uri", envvar="ZONECTL_URI", show_envvar=True, help=URI_HELP)


def uri_origin(uri: str | None) -> str:
    """Where the URI of this run came from, for a message that must not quote it: the
    inventory entry in a fleet run, else `$ZONECTL_URI` when it holds this very URI (typer
    reads the variable when --uri is absent), else `--uri`."""
    from zonectl.cli.fleet.context import current_target

    target = current_target()
    if target is not None:
        return target.uri_origin
    return "$ZONECTL_URI" if uri and os.environ.get("ZONECTL_URI") == uri else "--uri"


def parse_at(text: str | None, now: dt.datetime) -> dt.datetime:
    """`--at` as an aware UTC instant; `now` when absent."""
    if not text:
        return now
    from zonectl.firehose import parse_instant

    try:
        return parse_instant(text)
    except ValueError as exc:
        raise UsageError(f"--at: {exc}") from None


def load_desired(paths: Sequence[Path]) -> DesiredState:
    """Load and validate the policies; warnings to stderr; InvalidPolicyError (exit 3)
    carries the diagnostics, which the error boundary prints. In a fleet run, the current
    cluster's overlay is applied (the policy itself was loaded once, before the fan-out)."""
    from zonectl.cli.fleet.context import current_target
    from zonectl.cli.policy_load import load_policy_files

    target = current_target()
    ready = target.desired(paths) if target is not None else None
    if ready is not None:
        return ready
    desired = load_policy_files(paths)
    return target.overlaid(desired) if target is not None else desired


def warn(message: str, details: Sequence[str] = ()) -> None:
    """The message, then its detail lines: each line made inert whole (a name from the
    cluster with a line break in it is shown escaped, starting no line of its own)."""
    stderr.print(terminal(f"zonectl: warning: {redact(message)}"), markup=False)
    for line in details:
        stderr.print(terminal(f"  {redact(line)}"), markup=False)
