"""A line that starts with a command's name registers only that command (zonectl.cli.app,
so a run imports no other command's module); what the user sees is the same as with every
command registered: each command's --help, a usage error, and the top-level --help listing
them all. The references come from one interpreter with every command registered
(tests/startup/every_command.py); each line alone runs as a user runs it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import child_procs
import pytest

from zonectl.cli.commands import COMMANDS
from zonectl.cli.completion import COMPLETE_VAR

ROOT = Path(__file__).resolve().parents[2]
USAGE_ERRORS = [["plan"], ["validate", "--no-such-option"], ["fleet", "list", "-x"]]
LINES = [[name, "--help"] for name in sorted(COMMANDS)] + USAGE_ERRORS


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != COMPLETE_VAR}
    env.update(COLUMNS="100", NO_COLOR="1", TERM="dumb", PYTHONPATH=str(ROOT))
    return env


def _zonectl(*args: str) -> tuple[int, str, str]:
    done = child_procs.run(
        [sys.executable, "-m", "zonectl", *args],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,  # killed and reaped if it hangs, before the test's own limit
    )
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def every_command() -> dict[str, tuple[int, str, str]]:
    """Each line's answer with every command registered, from one interpreter."""
    script = Path(__file__).with_name("every_command.py")
    done = child_procs.run(
        [sys.executable, str(script), json.dumps(LINES)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return {line: (code, out, err) for line, (code, out, err) in json.loads(done.stdout).items()}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_commands_help_is_the_same_alone(
    name: str, every_command: dict[str, tuple[int, str, str]]
) -> None:
    alone = _zonectl(name, "--help")
    assert alone[0] == 0
    assert name in alone[1]
    assert alone == every_command[f"{name} --help"]


@pytest.mark.parametrize("args", USAGE_ERRORS, ids=" ".join)
def test_a_usage_error_is_the_same_alone(
    args: list[str], every_command: dict[str, tuple[int, str, str]]
) -> None:
    alone = _zonectl(*args)
    assert alone[0] == 2
    assert alone == every_command[" ".join(args)]


def test_the_top_level_help_lists_every_command() -> None:
    code, out, _ = _zonectl("--help")
    assert code == 0
    for name in COMMANDS:
        assert f" {name} " in out
