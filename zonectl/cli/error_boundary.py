"""The one error boundary: every command runs through `guarded`, which maps exceptions to
the exit codes of ARCHITECTURE.md, "Errors and exit codes" and prints one clear line on
stderr, never a traceback."""

from __future__ import annotations

import functools
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec

import typer
from rich.console import Console

from zonectl.errors import ExitCode, ZonectlError, redact
from zonectl.render.inert import terminal

P = ParamSpec("P")


class InertConsole(Console):
    """The conversation on stderr: every string printed is redacted, its control characters
    (from names taken from the cluster) shown escaped, and never read as rich markup. A
    string is one line: a line break in it is a name's, shown escaped; a text zonectl laid
    out in lines itself (a rendered plan) goes through `print_text`."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        kwargs["markup"] = False
        shown = [terminal(redact(o)) if isinstance(o, str) else o for o in objects]
        super().print(*shown, **kwargs)

    def print_text(self, text: str, *, end: str = "\n") -> None:
        """A text of zonectl's own lines, each already made inert by its renderer: its line
        breaks are kept, any other control character is still shown escaped."""
        super().print(terminal(redact(text), keep_newlines=True), markup=False, end=end)


stderr = InertConsole(stderr=True, highlight=False, soft_wrap=True)


def report_error(message: str, hint: str | None = None, details: Sequence[str] = ()) -> None:
    """The message, its detail lines, then the hint: each line made inert whole (a name
    with a line break in it is shown escaped and starts no line of its own)."""
    stderr.print(terminal(f"zonectl: error: {redact(message)}"))
    for line in details:
        stderr.print(terminal(f"  {redact(line)}"))
    if hint:
        stderr.print(terminal(f"  hint: {redact(hint)}"))


def run_guarded(fn: Callable[[], int]) -> int:
    """Run a command body and turn whatever it raises into an exit code."""
    try:
        return fn()
    except ZonectlError as exc:
        for diagnostic in getattr(exc, "diagnostics", ()):  # InvalidPolicyError: say where
            for line in diagnostic.lines():
                stderr.print(terminal(redact(line)))
        report_error(exc.message, exc.hint, exc.details)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        stderr.print("zonectl: interrupted", markup=False)
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        # stdout closed early (`zonectl plan | head`): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return int(ExitCode.FAILURE)
    except Exception as exc:  # a bug: say so, keep the traceback out of the operator's way
        report_error(
            f"internal error: {type(exc).__name__}: {exc}",
            "this is a bug in zonectl; rerun with ZONECTL_DEBUG=1 for the traceback",
        )
        if os.environ.get("ZONECTL_DEBUG"):
            traceback.print_exc()
        return int(ExitCode.FAILURE)


def guarded(fn: Callable[P, int]) -> Callable[P, None]:
    """Decorate a typer command body that returns an exit code."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        code = run_guarded(lambda: fn(*args, **kwargs))
        raise typer.Exit(code)

    return wrapper
