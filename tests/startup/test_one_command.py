"""A line that starts with a command's name registers only that command (zonectl.cli.app,
so a run imports no other command's module); what the user sees is the same as with every
command registered, which the completion variable (set, empty: an ordinary run) forces:
each command's --help, a usage error, and the top-level --help listing them all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from zonectl.cli.commands import COMMANDS
from zonectl.cli.completion import COMPLETE_VAR

ROOT = Path(__file__).resolve().parents[2]


def _zonectl(*args: str, every_command: bool) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != COMPLETE_VAR}
    env.update(COLUMNS="100", NO_COLOR="1", TERM="dumb", PYTHONPATH=str(ROOT))
    if every_command:
        env[COMPLETE_VAR] = ""  # present but empty: click runs the line as usual
    done = subprocess.run(
        [sys.executable, "-m", "zonectl", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,  # killed and reaped if it hangs, before the test's own limit
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_commands_help_is_the_same_alone(name: str) -> None:
    alone = _zonectl(name, "--help", every_command=False)
    assert alone[0] == 0
    assert name in alone[1]
    assert alone == _zonectl(name, "--help", every_command=True)


@pytest.mark.parametrize(
    "args", [("plan",), ("validate", "--no-such-option"), ("fleet", "list", "-x")]
)
def test_a_usage_error_is_the_same_alone(args: tuple[str, ...]) -> None:
    alone = _zonectl(*args, every_command=False)
    assert alone[0] == 2
    assert alone == _zonectl(*args, every_command=True)


def test_the_top_level_help_lists_every_command() -> None:
    code, out, _ = _zonectl("--help", every_command=False)
    assert code == 0
    for name in COMMANDS:
        assert f" {name} " in out
