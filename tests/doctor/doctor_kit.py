"""Helpers for the doctor tests: the demo cluster, the CLI, and a snapshot of everything the
probe could leave behind."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.auth.users import AuthConfig
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)


@dataclass
class Result:
    code: int
    out: str
    err: str

    def line(self, name: str) -> str:
        """The report line of check `name` ("ok    clock  ...")."""
        for line in self.out.splitlines():
            if line[:4].strip() in ("ok", "warn", "fail") and line[6:].startswith(name + "  "):
                return line
        raise AssertionError(f"no {name} line in:\n{self.out}")

    def status(self, name: str) -> str:
        return self.line(name).split()[0]


def zonectl(*args: str, env: Mapping[str, str] | None = None) -> Result:
    result = CliRunner().invoke(app, list(args), env=dict(env or {}), catch_exceptions=False)
    return Result(result.exit_code, result.stdout, result.stderr)


def doctor_json(*args: str) -> dict[str, Any]:
    result = zonectl("doctor", "--format", "json", *args)
    doc: dict[str, Any] = json.loads(result.out)
    doc["exit"] = result.code
    return doc


def demo_sandbox(version: str = "7.0", auth: AuthConfig | None = None) -> Sandbox:
    sandbox = Sandbox(version, auth=auth)
    seed.seed(sandbox, seed.load(None), str(seed.demo_path()))
    return sandbox


def snapshot(client: Any) -> dict[str, Any]:
    """Everything a probe touches: zone ranges, shard zones, sharded collections, and the
    collections of zonectl's database."""

    def docs(coll: str) -> list[Any]:
        return sorted((repr(sorted(d.items())) for d in client.config[coll].find({})), key=str)

    return {
        "tags": docs("tags"),
        "shards": docs("shards"),
        "collections": docs("collections"),
        "zonectl": sorted(client.zonectl.list_collection_names()),
    }
