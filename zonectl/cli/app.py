"""The typer application: one module per command under zonectl/cli/, registered here."""

from __future__ import annotations

import gc
import os
import signal
import sys
from types import FrameType

import typer

from zonectl import __version__
from zonectl.apply.reach import TERMINATING
from zonectl.cli.help_flags import hide_flag_types

hide_flag_types()

app = typer.Typer(
    name="zonectl",
    help=(
        "Policy-as-code for MongoDB sharding zones and the balancer.\n\n"
        "Exit codes: 0 ok, 1 runtime failure, 2 usage, 3 invalid policy, "
        "4 changes pending (--detailed-exitcode), 5 needs a human, "
        "130 interrupted (Ctrl-C, SIGTERM)."
    ),
    no_args_is_help=True,
    add_completion=True,  # --install-completion, --show-completion (zonectl.cli.completion)
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"zonectl {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Policy-as-code for MongoDB sharding zones and the balancer."""


def _register(args: list[str] | None = None) -> None:
    """Every command; for a line that starts with a command's name (`zonectl plan ...`)
    only that one, so its run imports none of the other commands' modules. `--help`, an
    option first, a name that is no command, shell completion: all of them, as before."""
    # Imported here so each command module stays independent of the others.
    from zonectl.cli import commands
    from zonectl.cli.completion import COMPLETE_VAR

    first = args[0] if args else None
    only = first if first in commands.COMMANDS and COMPLETE_VAR not in os.environ else None
    commands.register(app, only)


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (a supervisor's stop, a CronJob's deadline) unwinds as Ctrl-C does, through
    every command's clean-up, and exits 130; nothing waits long on the cluster after it."""
    TERMINATING.set()
    raise KeyboardInterrupt("SIGTERM")


# Python's cyclic collector, at its default thresholds (700, 10, 10), walks the young objects
# every 700 allocations: a plan over 10,000 collections builds millions of objects that live
# to the end of the run, and those walks took a third of its CPU (12 s, against 8 s with the
# collector off; /usr/bin/time). Collections every 100,000 net allocations keep its CPU at
# the collector-off figure and its peak memory the same (275 MB): zonectl makes few cycles.
# `plan` pauses it altogether while it runs (zonectl.cli.collector).
GC_THRESHOLDS = (100_000, 50, 100)


def main() -> None:
    signal.signal(signal.SIGTERM, _terminate)
    gc.set_threshold(*GC_THRESHOLDS)
    try:  # importing the command's modules: nothing to clean up yet, only to say so
        from zonectl.cli.completion import (
            COMPLETE_VAR,
            attach_completions,
            explicit_shell,
            run_for_shell,
            shell_help,
        )
        from zonectl.cli.error_boundary import run_guarded

        _register(sys.argv[1:])
        command = typer.main.get_command(app)  # what app() runs, with the completions attached
        attach_completions(command)
        shell_help(command)
    except KeyboardInterrupt:
        sys.stderr.write("zonectl: interrupted\n")
        sys.exit(130)  # ExitCode.INTERRUPTED, as run_guarded says it

    def for_shell() -> int:
        asked = explicit_shell(sys.argv[1:], getattr(command, "commands", {}))
        if asked is None:
            return -1
        run_for_shell(*asked, prog_name="zonectl")
        return 0

    code = run_guarded(for_shell)  # `--show-completion zsh`: the shell named wins
    if code >= 0:
        sys.exit(code)
    try:
        command(prog_name="zonectl", complete_var=COMPLETE_VAR)
    finally:
        # The command is done, its clean-up included (balancing restored, journal closed,
        # lease released). A Ctrl-C or SIGTERM from here on, while pymongo closes its
        # monitors at exit, has nothing left to stop and would only print a traceback from
        # an atexit hook.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
