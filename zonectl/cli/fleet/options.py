"""`@fleet_command(...)`: gives a cluster command the fleet options (--inventory, --cluster,
--all, --selector, --jobs). Without them the command runs as before; with them it runs once
per chosen cluster through `zonectl.cli.fleet.run`. To make a new command fleet-aware:

    @guarded
    @fleet_command(FleetSpec("doctor"))
    def command(..., uri: Annotated[str | None, uri_option()] = None, ...) -> int:

The command must take `uri` and read its policy (if any) through `common.load_desired`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from zonectl.cli.fleet.context import FleetArgs, FleetSpec

INVENTORY_HELP = (
    "The cluster inventory for --cluster/--all/--selector. Default: $ZONECTL_INVENTORY, "
    "else clusters.yaml in the current directory (format: docs/fleet.md)."
)


_FLEET_PARAMS = (
    (
        "inventory",
        Annotated[
            Path | None,
            typer.Option(
                "--inventory",
                metavar="PATH",
                envvar="ZONECTL_INVENTORY",
                show_envvar=True,
                help=INVENTORY_HELP,
                rich_help_panel="Fleet",
            ),
        ],
        None,
    ),
    (
        "fleet_clusters",
        Annotated[
            list[str] | None,
            typer.Option(
                "--cluster",
                metavar="NAME",
                help="Run against this inventory cluster (repeatable) instead of --uri.",
                rich_help_panel="Fleet",
            ),
        ],
        None,
    ),
    (
        "fleet_all",
        Annotated[
            bool,
            typer.Option(
                "--all", help="Run against every inventory cluster.", rich_help_panel="Fleet"
            ),
        ],
        False,
    ),
    (
        "fleet_selectors",
        Annotated[
            list[str] | None,
            typer.Option(
                "--selector",
                metavar="K=V",
                help="Run against the inventory clusters whose labels match k=v "
                "(repeatable or comma-separated; all must match).",
                rich_help_panel="Fleet",
            ),
        ],
        None,
    ),
    (
        "fleet_jobs",
        Annotated[
            int,
            typer.Option(
                "--jobs",
                "-j",
                metavar="N",
                min=1,
                help="Clusters run at once; each has its own lease and journal, and one "
                "failing never stops the others.",
                rich_help_panel="Fleet",
            ),
        ],
        16,
    ),
)


def fleet_command(spec: FleetSpec) -> Callable[[Callable[..., int]], Callable[..., int]]:
    def decorate(body: Callable[..., int]) -> Callable[..., int]:
        signature = inspect.signature(body, eval_str=True)
        extra = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=d, annotation=a)
            for name, a, d in _FLEET_PARAMS
        ]
        params = [*signature.parameters.values(), *extra]

        @functools.wraps(body)
        def wrapper(**kwargs: Any) -> int:
            args = FleetArgs(
                kwargs.pop("inventory", None),
                tuple(kwargs.pop("fleet_clusters", None) or ()),
                bool(kwargs.pop("fleet_all", False)),
                tuple(kwargs.pop("fleet_selectors", None) or ()),
                int(kwargs.pop("fleet_jobs", 16)),
            )
            if spec.precheck is not None:
                spec.precheck(kwargs)
            if not args.active:
                return body(**kwargs)
            from zonectl.cli.fleet.run import run_fleet

            return run_fleet(spec, body, kwargs, args)

        # typer reads the options from the signature and the (already evaluated) hints.
        del wrapper.__wrapped__
        wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in params} | {"return": int}
        return wrapper

    return decorate
