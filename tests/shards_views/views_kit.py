"""A cluster caught mid-drain, as a cluster file: shard s1 is draining (`draining: true`)
and still holds two chunks of app.users (one jumbo), the primary of database app and its
unsharded app.settings; the CLI run in-process against `sandbox:FILE?now=...` (clock
pinned, a fresh sandbox per run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from three_shards import S1_DRAINING
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)

NOW = "2026-11-20T10:00:00Z"  # a Friday

CLUSTER = S1_DRAINING  # tests/three_shards.py


def cluster_uri(tmp_path: Path, text: str = CLUSTER, version: str = "7.0") -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(text, encoding="utf-8")
    return f"sandbox:{path}?version={version}&now={NOW}"


def zonectl(*args: str) -> Any:
    """Run the CLI in-process: the result has exit_code, stdout and stderr."""
    return CliRunner().invoke(app, list(args), catch_exceptions=False)
