"""Helpers for the plan of shards joining and leaving: a seeded three-shard cluster whose
shard s1 holds zone ranges' data, a jumbo chunk and a database's primary; the CLI run
in-process; and a snapshot of the config metadata a plan must leave as it was."""

from __future__ import annotations

import datetime as dt
from typing import Any

from three_shards import REMOVE_S1, THREE_SHARDS

from zonectl.sandbox.seed import build
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

T0 = dt.datetime(2026, 11, 20, 10, 0, tzinfo=dt.UTC)  # a Friday
AT = "2026-11-20T10:00:00+00:00"

CLUSTER = THREE_SHARDS  # tests/three_shards.py

POLICY = REMOVE_S1  # tests/three_shards.py


def make_sandbox(version: str, text: str = CLUSTER) -> Sandbox:
    sandbox = Sandbox(version)
    sandbox.clock.set(T0)
    build.seed(sandbox, load_cluster_file("cluster.yaml", text), "cluster.yaml")
    return sandbox


def zonectl(*args: str) -> tuple[int, str, str]:
    """Run the CLI in-process; (exit code, stdout, stderr)."""
    from typer.testing import CliRunner

    from zonectl.cli.app import app
    from zonectl.cli.commands import register

    if not app.registered_commands:
        register(app)
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def metadata(client: Any) -> dict[str, list[dict[str, Any]]]:
    """Everything a shard's removal would change, as a user reads it."""
    config = client.config
    return {
        "shards": list(config.shards.find({}, sort=[("_id", 1)])),
        "databases": list(config.databases.find({"_id": {"$ne": "zonectl"}}, sort=[("_id", 1)])),
        "chunks": list(config.chunks.find({}, {"lastmod": 0}, sort=[("_id", 1)])),
        "tags": list(config.tags.find({}, sort=[("_id", 1)])),
        "collections": list(config.collections.find({}, sort=[("_id", 1)])),
    }
