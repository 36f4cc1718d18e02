"""--help of every command (fleet's subcommands and the root included): a boolean flag
shows no value type (it takes none), while options that take a value keep theirs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import typer
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)


def _paths(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from _paths(sub, (*path, name))


def test_no_help_shows_a_type_after_a_boolean_flag() -> None:
    paths = list(_paths(typer.main.get_command(app)))
    assert ("apply",) in paths and ("fleet", "cronjobs") in paths
    for path in paths:
        result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, path
        assert "<bool>" not in result.stdout, path
        assert "--help" in result.stdout, path


def test_options_that_take_a_value_still_show_it() -> None:
    out = CliRunner().invoke(app, ["plan", "--help"], env={"COLUMNS": "200"}).stdout
    flag = next(line for line in out.splitlines() if line.startswith("│ --detailed-exitcode"))
    assert flag.split("--detailed-exitcode", 1)[1].split()[0] == "Exit"  # no type between
    assert any(
        "--format" in line and "<text|json|markdown|github|html>" in line
        for line in out.splitlines()
    )
    assert any("--save-plan" in line and "FILE" in line for line in out.splitlines())
