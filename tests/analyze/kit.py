"""Helpers for the analyze tests: a sandbox seeded from cluster-file text, served over TCP,
and `zonectl analyze --format json` run against it through the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.seed.build import seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

SHARDS = """
shards:
  - {name: s0, zones: [a]}
  - {name: s1, zones: [a]}
  - {name: s2, zones: [b]}
databases:
  - {name: app, primary: s0}
"""


def serve_cluster(sandbox_server: Callable[..., Any], text: str, version: str = "7.0") -> Any:
    """A served sandbox seeded from cluster-file `text`."""
    sandbox = Sandbox(version)
    seed(sandbox, load_cluster_file("cluster.yaml", text), "cluster.yaml")
    return sandbox_server(version, sandbox=sandbox)


def analyze(
    uri: str, tmp_path: Path, policy: str | None = None, *extra: str
) -> tuple[int, dict[str, Any], str]:
    """Exit code, the JSON report, and stderr of `zonectl analyze`."""
    args = ["analyze", "--uri", uri, "--format", "json", *extra]
    if policy is not None:
        path = tmp_path / "policy.yaml"
        path.write_text(policy, encoding="utf-8")
        args.insert(1, str(path))
    result = CliRunner().invoke(app, args)
    report = json.loads(result.stdout) if result.stdout.strip() else {}
    return result.exit_code, report, result.stderr


def rules(report: dict[str, Any], ns: str | None = None) -> set[str]:
    """Rule ids found (for one namespace, or all)."""
    found = {f["rule"] for f in report.get("findings", []) if ns is None}
    for c in report.get("collections", []):
        if ns is None or c["namespace"] == ns:
            found |= {f["rule"] for f in c["findings"]}
    return found


def collection(report: dict[str, Any], ns: str) -> dict[str, Any]:
    return next(c for c in report["collections"] if c["namespace"] == ns)
