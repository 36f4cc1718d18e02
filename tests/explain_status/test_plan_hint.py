"""plan points to `zonectl explain -n NS` when its forecast says the balancer never finishes
a namespace (here: the balancer is off), and says nothing of it when the balancer does:
text, markdown and JSON of a real plan against the sandbox over TCP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tests.explain.kit import SHARDS, Kit, make_kit
from zonectl.cli.app import app

S0, S1, S2 = SHARDS
POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
shards:
  shard2: [hot]
collections:
  t.zoned:
    key: {x: 1}
    ranges:
      - {zone: hot, min: {x: 0}, max: {x: 100}}
"""
HINT = "the balancer never finishes 1 namespace: `zonectl explain -n t.zoned` says why"


def _plan(kit: Kit, policy: Path, *args: str) -> str:
    result = CliRunner().invoke(
        app, ["plan", str(policy), "--uri", kit.handle.uri, *args], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr + result.stdout
    return str(result.stdout)


def test_plan_names_explain_where_the_balancer_never_finishes(
    sandbox_server: Any, tmp_path: Path
) -> None:
    kit = make_kit(sandbox_server, "7.0")
    kit.collection("t.zoned", [0, 50, 100], [S0, S0, S0, S1])
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    assert HINT not in _plan(kit, policy)  # the balancer is on: it gets there
    kit.admin.command("balancerStop")
    text = _plan(kit, policy)
    assert "balancer never (the balancer is off)" in text
    assert f"  {HINT} and what would fix it\n" in text
    markdown = _plan(kit, policy, "--format", "markdown")
    assert f"\nThe{HINT[3:]} and what would fix it.\n" in markdown
    doc = json.loads(_plan(kit, policy, "--format", "json"))
    assert f"{HINT} and what would fix it" in doc["forecast"]["notes"]
