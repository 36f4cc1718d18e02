"""Shared helpers for the twin tests: the slow six-shard cluster of tests/migrate_time, CLI
runs, and a sandbox's config documents (to prove capture read-only and to write dumps)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "migrate_time"))
from six_shards import CLUSTER, POLICY

if not app.registered_commands:
    register(app)

SLOW = CLUSTER.replace("{name: c2, zones: [cold]}", "{name: c2, zones: [cold], copyRate: 3MiB/s}")
NEXT = POLICY.replace("1300", "2000")
CONFIG = ("shards", "databases", "collections", "chunks", "tags", "settings", "version")


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def ops(policy: str, uri: str) -> list[dict[str, Any]]:
    out = run("plan", policy, "--uri", uri, "-f", "json")
    assert out.exit_code in (0, 4), out.output
    doc = json.loads(out.stdout)
    return [{k: op[k] for k in ("kind", "namespace", "args")} for op in doc["ops"]]


def config_docs(sandbox: Any) -> dict[str, list[dict[str, Any]]]:
    cluster = sandbox.cluster
    out = {
        name: [dict(d) for d in cluster.coll(f"config.{name}")]
        for name in CONFIG
        if name != "chunks"
    }
    out["chunks"] = [
        dict(c) for s in cluster.stores() for c in (s.document(i) for i in range(len(s)))
    ]
    out["changelog"] = [dict(d) for d in cluster.coll("config.changelog")]
    return out


def forecast(policy: str, uri: str) -> dict[str, Any]:
    out = run("plan", policy, "--uri", uri, "-f", "json")
    assert out.exit_code in (0, 4), out.output
    return dict(json.loads(out.stdout)["forecast"])
