"""The reshard route's phases beside the copy (oplog catch-up, the critical section) come
from the cluster's own finished reshardings in config.changelog, as the coordinator logs
them; with none, from zonectl's stated assumptions, which the plan names as assumed."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from reshard_kit import zonectl

from zonectl.sandbox.clock import Clock
from zonectl.sandbox.seed.build import seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

START = dt.datetime(2026, 3, 2, tzinfo=dt.UTC)
GIB = 1024**3
# app.hist: 40 GiB, resharded once for the history (about 10 GiB per shard at 16 MiB/s: its
# catch-up shows past the 5-minute minimum); app.data: the zone change planned.
CLUSTER = f"""version: "8.0"
balancer: {{copyRate: 16MiB/s}}
shards:
  - {{name: s0, zones: [A]}}
  - {{name: s1, zones: [A]}}
  - {{name: s2, zones: [B]}}
  - {{name: s3, zones: [B]}}
databases:
  - {{name: app, primary: s0}}
collections:
  - ns: app.hist
    key: {{k: 1}}
    chunks: 40
    keys: {{type: int, start: 0, step: 100}}
    chunkSize: {{bytes: {GIB}, docs: 1000}}
  - ns: app.data
    key: {{k: 1}}
    chunks: 40
    keys: {{type: int, start: 0, step: 100}}
    chunkSize: {{bytes: {64 * 1024**2}, docs: 1000}}
zones:
  - {{ns: app.data, min: {{k: {{$minKey: 1}}}}, max: {{k: 2000}}, zone: A}}
  - {{ns: app.data, min: {{k: 2000}}, max: {{k: {{$maxKey: 1}}}}, zone: B}}
"""
POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
shards: {s0: [A], s1: [A], s2: [B], s3: [B]}
collections:
  app.data:
    key: {k: 1}
    migrate: reshard
    ranges:
      - {zone: B, min: {k: {$minKey: 1}}, max: {k: 2000}}
      - {zone: A, min: {k: 2000}, max: {k: {$maxKey: 1}}}
"""


def _served(sandbox_server: Any, tmp_path: Path) -> Any:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER)
    sandbox = Sandbox("8.0", clock=Clock.virtual(START))
    seed(sandbox, load_cluster_file(path), str(path))
    return sandbox_server("8.0", sandbox=sandbox)


def _plan(handle: Any, tmp_path: Path, fmt: str) -> str:
    (tmp_path / "policy.yaml").write_text(POLICY)
    code, out, err = zonectl("plan", str(tmp_path / "policy.yaml"), "--uri", handle.uri, "-f", fmt)
    assert code == 0, out + err
    return out


def test_without_history_the_phases_are_assumed_and_the_plan_says_so(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = _served(sandbox_server, tmp_path)
    text = _plan(handle, tmp_path, "text")
    assert (
        "reshard route: phases assumed (no finished resharding in config.changelog): oplog "
        "catch-up 10% of the copy (at least 30s, assumed), writes blocked 2s (MongoDB's bound), "
        "5 min minimum (MongoDB's default)"
    ) in text, text
    (route,) = json.loads(_plan(handle, tmp_path, "json"))["forecast"]["reshard"]
    assert route["phases"] == {
        "source": "assumed",
        "reshardings": 0,
        "catch_up_share": 0.10,
        "catch_up_floor_seconds": 30.0,
        "critical_seconds": 2.0,
        "minimum_seconds": 300.0,
    }


def test_a_finished_resharding_teaches_the_catch_up_and_the_critical_section(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = _served(sandbox_server, tmp_path)
    cmd = {"reshardCollection": "app.hist", "key": {"k": 1}, "forceRedistribution": True}
    handle.client.admin.command(cmd)
    log = handle.client.config.changelog.find({"what": "resharding.coordinator.transition"})
    at = {e["details"]["newState"]: e["time"] for e in log}
    cloning = (at["applying"] - at["cloning"]).total_seconds()
    catch_up = (at["blocking-writes"] - at["applying"]).total_seconds()
    critical = (at["done"] - at["blocking-writes"]).total_seconds()
    assert (at["blocking-writes"] - at["initializing"]).total_seconds() > 300  # past the minimum

    (route,) = json.loads(_plan(handle, tmp_path, "json"))["forecast"]["reshard"]
    phases = route["phases"]
    assert phases["source"] == "learned" and phases["reshardings"] == 1
    assert abs(phases["catch_up_share"] - catch_up / cloning) < 1e-3
    assert phases["catch_up_floor_seconds"] == 0.0
    assert abs(phases["critical_seconds"] - critical) < 1e-3
    share = round(100 * catch_up / cloning)
    text = _plan(handle, tmp_path, "text")
    assert (
        f"reshard route: phases learned from 1 resharding(s) in config.changelog: oplog "
        f"catch-up {share}% of the copy, writes blocked {critical:.0f}s"
    ) in text, text
