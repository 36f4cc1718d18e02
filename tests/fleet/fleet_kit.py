"""Helpers for the fleet tests: seeded sandboxes, the CLI, the fixtures' paths."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

FIXTURES = Path(__file__).resolve().parent / "fixtures"
POLICY = FIXTURES / "policy.yaml"

if not app.registered_commands:
    register(app)


def seeded(cluster_file: str = "cluster.yaml") -> Sandbox:
    sandbox = Sandbox("7.0")
    seed.seed(sandbox, seed.load(FIXTURES / cluster_file), cluster_file)
    return sandbox


def zonectl(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr
