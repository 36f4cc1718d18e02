"""A cluster caught mid-drain, as a cluster file: shard s1 is draining (`draining: true`)
and still holds two chunks of app.users (one jumbo), the primary of database app and its
unsharded app.settings; the CLI run in-process against `sandbox:FILE?now=...` (clock
pinned, a fresh sandbox per run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)

NOW = "2026-11-20T10:00:00Z"  # a Friday

# app.users: 4 chunks of 4 MiB, [MinKey, DE) on s0, [DE, FR) and [FR, US) on s1 (the second
# one jumbo), [US, MaxKey) on s2; zone eu (s0, s1) has [DE, US), zone us (s2) [US, MaxKey).
CLUSTER = """
shards:
  - {name: s0, zones: [eu]}
  - {name: s1, zones: [eu], draining: true}
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


def cluster_uri(tmp_path: Path, text: str = CLUSTER, version: str = "7.0") -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(text, encoding="utf-8")
    return f"sandbox:{path}?version={version}&now={NOW}"


def zonectl(*args: str) -> Any:
    """Run the CLI in-process: the result has exit_code, stdout and stderr."""
    return CliRunner().invoke(app, list(args), catch_exceptions=False)
