"""Helpers for the balancer-settings tests: a served sandbox of a given version, a policy
file, and the CLI run in-process (real pymongo to the sandbox over TCP)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tests.analyze.kit import SHARDS, serve_cluster
from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)

CLUSTER = (
    SHARDS
    + """
collections:
  - {ns: app.events, key: {k: 1}, chunks: 6, keys: {type: int, start: 0, step: 1000}}
  - {ns: app.users, key: {u: 1}, chunks: 2, keys: {type: int, start: 0, step: 1000}}
"""
)
HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\n"


def serve(sandbox_server: Any, version: str = "7.0") -> Any:
    return serve_cluster(sandbox_server, CLUSTER, version)


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def policy(tmp_path: Path, body: str, name: str = "policy.yaml") -> str:
    path = tmp_path / name
    path.write_text(HEAD + body, encoding="utf-8")
    return str(path)


def settings_doc(handle: Any, _id: str) -> dict[str, Any] | None:
    doc = handle.client.config.settings.find_one({"_id": _id})
    return dict(doc) if doc is not None else None


def collection_doc(handle: Any, ns: str) -> dict[str, Any]:
    return dict(handle.client.config.collections.find_one({"_id": ns}))
