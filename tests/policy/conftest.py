"""Fixtures for policy tests: write a policy in a temp dir (shown as `p.yaml`), load it, and
run `zonectl` through typer's CliRunner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.errors import InvalidPolicyError
from zonectl.policy import load_policy

if not app.registered_commands:
    register(app)

# Five lines; a test's collections start on line 6.
HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: [hot, cold]\ncollections:\n"

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in tmp_path so diagnostics show short relative paths."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def diagnose(workdir: Path) -> Callable[..., list[str]]:
    """diagnose(collections_yaml) -> every diagnostic of HEAD + it, as printed."""

    def run(body: str, *, head: str = HEAD) -> list[str]:
        (workdir / "p.yaml").write_text(head + body)
        try:
            return [str(d) for d in load_policy(["p.yaml"]).diagnostics]
        except InvalidPolicyError as exc:
            return [str(d) for d in exc.diagnostics]

    return run


@pytest.fixture
def zonectl() -> Run:
    def run(*args: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(app, list(args), catch_exceptions=False)
        return result.exit_code, result.stdout, result.stderr

    return run
