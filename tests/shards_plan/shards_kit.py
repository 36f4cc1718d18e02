"""Helpers for the plan of shards joining and leaving: a seeded three-shard cluster whose
shard s1 holds zone ranges' data, a jumbo chunk and a database's primary; the CLI run
in-process; and a snapshot of the config metadata a plan must leave as it was."""

from __future__ import annotations

import datetime as dt
from typing import Any

from zonectl.sandbox.seed import build
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

T0 = dt.datetime(2026, 11, 20, 10, 0, tzinfo=dt.UTC)  # a Friday
AT = "2026-11-20T10:00:00+00:00"

# app.users: 4 chunks of 4 MiB, [MinKey, DE) on s0, [DE, FR) and [FR, US) on s1 (the second
# one jumbo), [US, MaxKey) on s2; zone eu (s0, s1) has [DE, US), zone us (s2) [US, MaxKey).
CLUSTER = """
shards:
  - {name: s0, zones: [eu]}
  - {name: s1, zones: [eu]}
  - {name: s2, zones: [us]}
databases:
  - {name: app, primary: s1}
  - {name: shop, primary: s0}
collections:
  - ns: app.users
    key: {country: 1}
    keys: {type: list, values: [DE, FR, US]}
    distribution: listed
    placement: [s0, s1, s1, s2]
    chunkSize: {bytes: 4194304, docs: 10000}
    jumbo: [2]
zones:
  - {ns: app.users, min: {country: DE}, max: {country: US}, zone: eu}
  - {ns: app.users, min: {country: US}, max: {country: {$maxKey: 1}}, zone: us}
unsharded:
  - {ns: app.settings}
"""

POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
shards:
  s0: [eu]
  s1: {state: removed}
  s2: [us]
"""


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
