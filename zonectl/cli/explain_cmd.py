"""`zonectl explain`: why each sharded collection is or is not moving, and when it will."""

from __future__ import annotations

import functools
import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from zonectl.cli.artifact import emit, out_option
from zonectl.cli.common import load_desired, uri_option, uri_origin
from zonectl.cli.connection import open_cluster
from zonectl.cli.error_boundary import guarded
from zonectl.cli.forecast_wiring import (
    balancer_tz_option,
    copy_rate_option,
    parse_forecast_flags,
    with_policy_timezone,
)
from zonectl.cli.ns_option import namespace_option
from zonectl.environment import Settings
from zonectl.errors import ExitCode
from zonectl.render.explain import (
    render_explain_json,
    render_explain_markdown,
    render_explain_text,
)
from zonectl.session.explain import ExplainRequest, explain_cluster
from zonectl.session.namespaces import select_namespaces

SCOPE = "among the cluster's sharded collections"


class Format(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"


@guarded
def command(
    policy: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Optional policy files or directories: the balancer window is then read in "
            "the policy's balancer.timezone, as plan and status read it (--balancer-tz and "
            "$ZONECTL_CONFIG_TIMEZONE still win); nothing else is taken from them.",
            show_default=False,
            metavar="POLICY",
        ),
    ] = None,
    uri: Annotated[str | None, uri_option()] = None,
    namespaces: Annotated[
        list[str] | None,
        namespace_option(
            "Explain only these sharded collections (repeatable).",
            scope="the cluster has sharded",
            policy=False,
        ),
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
    out: Annotated[Path | None, out_option()] = None,
    copy_rate: Annotated[str | None, copy_rate_option()] = None,
    balancer_tz: Annotated[str | None, balancer_tz_option()] = None,
) -> int:
    """Say why each sharded collection is or is not moving, and when it will.

    For every sharded collection (or those -n names): its state, `balanced`
    (nothing to move), `moving` (the balancer moves it in its coming rounds),
    `waiting` (it will, but not now: the window is closed, a resharding or a
    defragmentation comes first) or `stuck` (nothing moves it without a person);
    its reasons, each with a stable code, the numbers and a fix; and, where
    chunks move out of zone, when the forecast has them moved.

    The rules are MongoDB's balancer policy (docs/explain.md names the source
    of each), applied to what the config database holds, read in the same few
    commands however many collections there are. The balancer window is read in
    the config server's zone: --balancer-tz, else $ZONECTL_CONFIG_TIMEZONE, else
    the POLICY's balancer.timezone, else UTC. Read-only.

    Exit codes: 0 shown; 1 runtime error; 2 bad option (an unknown or unsharded
    --namespace); 3 invalid policy.

    Examples:

      zonectl explain --uri sandbox:

      zonectl explain --uri "$ZONECTL_URI" -n app.events --format json

      zonectl explain policies/ --uri "$ZONECTL_URI"
    """
    settings = Settings.from_environ(os.environ)
    flags = parse_forecast_flags(copy_rate, None, balancer_tz)
    desired = load_desired(policy) if policy else None
    flags = with_policy_timezone(flags, desired, settings.config_timezone)
    choose = functools.partial(select_namespaces, namespaces, where=SCOPE) if namespaces else None
    request = ExplainRequest(flags=flags, choose=choose)
    with open_cluster(uri, uri_origin(uri)) as conn:
        found = explain_cluster(conn, request)
    if fmt is Format.json:
        text = render_explain_json(found)
    elif fmt is Format.markdown:
        text = render_explain_markdown(found)
    else:
        text = render_explain_text(found)
    emit(text, out)
    return int(ExitCode.OK)
