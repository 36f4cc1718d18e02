"""`zonectl plan` through the CLI against a 7.0 sandbox, a policy removing a shard: the
forecast gives the drain's time by the balancer (inside its window), by apply --migrate, and
why a route never ends (jumbo chunks); the clock pinned by --at and the sandbox's clock."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.seed import build
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

T0 = dt.datetime(2026, 11, 20, 10, 0, tzinfo=dt.UTC)
AT = "2026-11-20T10:00:00+00:00"

# app.events: 6 chunks of 64 MiB, four of them on s2 (the shard removed), which is also
# the primary of app; `jumbo` marks one of s2's chunks jumbo.
CLUSTER = """
shards:
  - {{name: s0}}
  - {{name: s1}}
  - {{name: s2}}
databases:
  - {{name: app, primary: s2}}
collections:
  - ns: app.events
    key: {{k: 1}}
    keys: {{type: int, start: 0, step: 100}}
    chunks: 6
    distribution: listed
    placement: [s0, s1, s2, s2, s2, s2]
    chunkSize: {{bytes: 67108864, docs: 1000}}
    jumbo: {jumbo}
"""

POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
{balancer}shards:
  s0: []
  s1: []
  s2: {{state: removed}}
"""
WINDOW = 'balancer:\n  enabled: true\n  activeWindow: {start: "23:00", stop: "02:00"}\n'


def _serve(sandbox_server: Callable[..., Any], jumbo: list[int], version: str = "7.0") -> Any:
    sandbox = Sandbox(version)
    sandbox.clock.set(T0)
    text = CLUSTER.format(jumbo=jumbo)
    build.seed(sandbox, load_cluster_file("cluster.yaml", text), "cluster.yaml")
    return sandbox_server(version, sandbox=sandbox)


def _plan(tmp_path: Path, uri: str, balancer: str, *more: str) -> str:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY.format(balancer=balancer))
    result = CliRunner().invoke(app, ["plan", str(policy), "--uri", uri, "--at", AT, *more])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_plan_prints_the_drain_by_each_route(
    sandbox_server: Callable[..., Any], tmp_path: Path
) -> None:
    sb = _serve(sandbox_server, [])
    out = _plan(tmp_path, sb.uri, WINDOW)
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  drain of shard"))
    # No history: 1 s fixed + 64 MiB/s assumed. Four 64 MiB chunks (2 s each) and 341
    # empty config.system.sessions chunks (1 s each): 349 s one after another by
    # --migrate; the balancer waits for its 23:00 window, then adds 344 throttles of 1 s.
    assert lines[at : at + 3] == [
        "  drain of shard s2: 345 chunks, 256.0 MiB, 1 database primary; by the balancer "
        "~13h11m (at 2026-11-20 23:11 UTC, inside its window 23:00-02:00 UTC), by apply "
        "--migrate ~5m49s (at 2026-11-20 10:05 UTC)",
        "    movePrimary of 1 database: ~1s, one at a time, alongside the chunks",
        "    the balancer: one migration at a time off the shard, "
        "balancerMigrationsThrottlingMs (assumed 1s) apart",
    ]
    assert "by resharding" not in out  # before 7.2: no forceRedistribution
    doc = json.loads(_plan(tmp_path, sb.uri, WINDOW, "--format", "json"))
    (drain,) = doc["forecast"]["drains"]
    # bytes as $shardedDataDistribution owns them: a few bytes short of 4 x 64 MiB
    assert drain["migrate"]["seconds"] == pytest.approx(349.0, abs=0.01)
    assert drain["balancer"]["seconds"] == pytest.approx(13 * 3600 + 349 + 344, abs=0.01)
    assert drain["balancer"]["at"].startswith("2026-11-20T23:11:3")
    assert (drain["cost_source"], drain["reshard"]) == ("assumed", None)
    page = _plan(tmp_path, sb.uri, WINDOW, "--format", "html")
    table = page[page.index('<table data-role="drain-table">') :].split("</table>")[0]
    assert "<td>s2</td>" in table
    assert "~13h11m (at 2026-11-20 23:11 UTC, inside its window 23:00-02:00 UTC)" in table


def test_a_jumbo_chunk_makes_both_routes_never_with_the_way_out(
    sandbox_server: Callable[..., Any], tmp_path: Path
) -> None:
    # One of s2's four chunks: the balancer's other chunks take 3 x 2 s + 341 x 1 s and 343
    # throttles; --migrate --force-jumbo takes them all, 349 s.
    sb = _serve(sandbox_server, [3])
    out = _plan(tmp_path, sb.uri, "")
    (line,) = [line for line in out.splitlines() if line.startswith("  drain of shard")]
    assert line == (
        "  drain of shard s2: 345 chunks, 256.0 MiB, 1 jumbo chunk, 1 database primary; "
        "by the balancer never (1 jumbo chunk stays: the balancer never moves a jumbo "
        "chunk off a draining shard; split them, or take apply --migrate "
        "--force-jumbo or resharding; its other chunks leave in ~11m30s), by apply --migrate "
        "never (1 jumbo chunk stops it: pass --force-jumbo; with it ~5m49s)"
    )


def test_on_8_0_resharding_is_named_where_a_jumbo_chunk_blocks_the_others(
    sandbox_server: Callable[..., Any], tmp_path: Path
) -> None:
    # app.events resharded onto s0 and s1 (its 5-minute minimum and 2 s of blocked writes:
    # 302 s), then the movePrimary (1 s); config.system.sessions cannot be resharded: its
    # 341 chunks migrate meanwhile (341 s), and end last.
    sb = _serve(sandbox_server, [3], "8.0")
    out = _plan(tmp_path, sb.uri, "")
    (line,) = [line for line in out.splitlines() if line.startswith("  drain of shard")]
    assert line.endswith(
        "by apply --migrate never (1 jumbo chunk stops it: pass --force-jumbo; with it "
        "~5m49s), by resharding ~5m41s (at 2026-11-20 10:05 UTC)"
    )


def test_a_draining_shards_zoned_chunks_go_to_their_zone_not_never(
    sandbox_server: Callable[..., Any], tmp_path: Path
) -> None:
    """s1 draining (its removal started), the policy removing it: its chunk of zone eu goes
    to s0, eu's other shard, first in the balancer's round (balancer_policy.cpp step 1).
    The namespace forecast said `never (a zone has no shard that can take its chunks)`
    because the draining shard was left out of the simulation's donors."""
    from three_shards import REMOVE_S1, S1_DRAINING

    sandbox = Sandbox("8.0")
    sandbox.clock.set(T0)
    build.seed(sandbox, load_cluster_file("cluster.yaml", S1_DRAINING), "cluster.yaml")
    sb = sandbox_server("8.0", sandbox=sandbox)
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        REMOVE_S1 + "collections:\n  app.users:\n    key: {country: 1}\n    ranges:\n"
        "      - {zone: eu, min: {country: DE}, max: {country: US}}\n"
        "      - {zone: us, min: {country: US}, max: {country: {$maxKey: 1}}}\n"
    )
    args = ["plan", str(policy), "--uri", sb.uri, "--at", AT, "--format", "json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stderr
    (users,) = json.loads(result.stdout)["forecast"]["namespaces"]
    assert (users["ns"], users["chunks"]) == ("app.users", 2)  # one of them jumbo
    assert users["balancer_never_because"] is None
    assert users["balancer_seconds"] is not None and users["balancer_seconds"] > 0
