"""Helpers for the disk guard through the CLI: a seeded cluster whose data sits on s0, a
small shard s1 (a 20 GiB volume with 14 GiB used) and a large one s2; policies that send the
data to either; the CLI run in-process; the metadata a refused apply must leave as it was."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from zonectl.sandbox.seed import build
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

T0 = dt.datetime(2026, 11, 20, 10, 0, tzinfo=dt.UTC)
AT = "2026-11-20T10:00:00+00:00"
GIB = 1 << 30


def cluster(chunks: int = 128) -> str:
    """app.events: `chunks` chunks of 64 MiB (128 of them: 8 GiB) on s0, stored at half
    their size (snappy's typical ratio) plus 64 bytes of index per document."""
    return f"""
shards:
  - {{name: s0, disk: {{size: 400GiB, baseline: 2GiB}}}}
  - {{name: s1, disk: {{size: 20GiB, baseline: 14GiB}}}}
  - {{name: s2, disk: {{size: 500GiB, baseline: 2GiB}}}}
databases:
  - {{name: app, primary: s0}}
collections:
  - ns: app.events
    key: {{x: 1}}
    keys: {{type: int, start: 0, step: 1000}}
    chunks: {chunks}
    distribution: all-on-one
    shard: s0
    chunkSize: {{bytes: 67108864, docs: 12500}}
    compression: 0.5
    indexBytesPerDocument: 64
"""


def policy(tmp_path: Path, zone: str = "small", *, head: str = "", more: str = "") -> str:
    """s1 carries zone small, s2 zone big; app.events pinned to `zone`."""
    path = tmp_path / "policy.yaml"
    path.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\n"
        + head
        + "shards:\n  s1: [small]\n  s2: [big]\n"
        + more
        + f"collections:\n  app.events: {{pin: {zone}}}\n"
    )
    return str(path)


def make_sandbox(version: str, text: str, **kwargs: Any) -> Sandbox:
    """A seeded sandbox, clock at T0; kwargs go to Sandbox (auth=)."""
    sandbox = Sandbox(version, **kwargs)
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
    """What an apply would change: zones, ranges, chunks, collection entries."""
    config = client.config
    return {
        "shards": list(config.shards.find({}, sort=[("_id", 1)])),
        "tags": list(config.tags.find({}, sort=[("_id", 1)])),
        "chunks": list(config.chunks.find({}, {"lastmod": 0}, sort=[("_id", 1)])),
        "collections": list(config.collections.find({}, sort=[("_id", 1)])),
    }
