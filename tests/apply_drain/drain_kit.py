"""Helpers for the drain tests: a seeded three-shard cluster whose shard s1 holds zone
ranges' data and a database's primary (a jumbo chunk on request), the policy that removes
s1, the CLI in-process, and what a drain must keep (zone ranges, balancing)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.seed import build
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

T0 = dt.datetime(2026, 11, 20, 10, 0, tzinfo=dt.UTC)  # the sandbox's clock, pinned

# app.users: [MinKey, DE) on s0, [DE, FR) and [FR, US) on s1, [US, MaxKey) on s2; zone eu
# (s0, s1) has [DE, US), zone us (s2) [US, MaxKey); s1 is app's primary. The config server
# splits config.system.sessions into 8 chunks, not the default 1024
# (minNumChunksForSessionsCollection, docs/sandbox-fidelity.md): s1 holds 3 of them, which
# its drain moves with the rest, and not 341 (seconds of migrations in every drain test).
CLUSTER = """
configServer:
  setParameter: {minNumChunksForSessionsCollection: 8}
shards:
  - {name: s0, zones: [eu]}
  - {name: s1, zones: [eu]}
  - {name: s2, zones: [us]}
spareShards:
  - {name: s3, host: "s3/s3.sandbox:27021"}
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
zones:
  - {ns: app.users, min: {country: DE}, max: {country: US}, zone: eu}
  - {ns: app.users, min: {country: US}, max: {country: {$maxKey: 1}}, zone: us}
"""
JUMBO = CLUSTER.replace("    chunkSize:", "    jumbo: [2]\n    chunkSize:")

HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n"
REMOVE_S1 = HEAD + "  s0: [eu]\n  s1: {state: removed}\n  s2: [us]\n"
KEEP_S1 = HEAD + "  s0: [eu]\n  s1: [eu]\n  s2: [us]\n"

if not app.registered_commands:
    register(app)


def make_sandbox(version: str, text: str = CLUSTER) -> Sandbox:
    sandbox = Sandbox(version)
    sandbox.clock.set(T0)
    build.seed(sandbox, load_cluster_file("cluster.yaml", text), "cluster.yaml")
    return sandbox


def policy(tmp_path: Path, text: str = REMOVE_S1) -> str:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    return str(path)


def zonectl(*args: str) -> tuple[int, str, str]:
    """The CLI in this process; (exit code, stdout, stderr)."""
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def kept(client: Any) -> dict[str, Any]:
    """What a drain must leave as it was: every zone range, and balancing."""
    config = client.config
    return {
        "tags": list(config.tags.find({}, {"_id": 0}, sort=[("ns", 1), ("min", 1)])),
        "noBalance": {
            d["_id"]: d.get("noBalance", False)
            for d in config.collections.find({}, {"noBalance": 1})
        },
        "balancer": config.settings.find_one({"_id": "balancer"}),
    }


def shards(client: Any) -> dict[str, Any]:
    """shard -> its config.shards fields that a removal or addition changes."""
    return {
        d["_id"]: {"draining": d.get("draining", False), "tags": d.get("tags", [])}
        for d in client.config.shards.find()
    }


def owners(client: Any, ns: str) -> list[str]:
    """The shard of each chunk of `ns`, by min."""
    uuid = client.config.collections.find_one({"_id": ns})["uuid"]
    return [c["shard"] for c in client.config.chunks.find({"uuid": uuid}, sort=[("min", 1)])]


def chunks_on(client: Any, shard: str) -> int:
    return int(client.config.chunks.count_documents({"shard": shard}))
