"""Running zonectl's CLI in-process (typer's CliRunner) and judging how a run ended: never an
internal error or a traceback, always a documented exit code."""

from __future__ import annotations

from dataclasses import dataclass

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)

# README / ARCHITECTURE.md, "Errors and exit codes": 0 ok, 1 runtime failure, 2 usage,
# 3 invalid policy, 4 changes pending (--detailed-exitcode), 5 needs a human. 130
# (interrupted) never happens here.
DOCUMENTED = frozenset({0, 1, 2, 3, 4, 5})


@dataclass(frozen=True)
class Run:
    args: tuple[str, ...]
    code: int
    out: str
    err: str

    def crashed(self) -> str | None:
        """Why this run counts as a crash, or None."""
        text = self.out + self.err
        if "internal error" in text:
            return "internal error"
        if "Traceback (most recent call last)" in text:
            return "traceback"
        if self.code not in DOCUMENTED:
            return f"exit code {self.code}"
        return None

    def show(self) -> str:
        return f"zonectl {' '.join(self.args)} -> {self.code}\n{self.err[-2000:]}"


def zonectl(*args: str) -> Run:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return Run(tuple(args), result.exit_code, result.stdout, result.stderr)
