"""analyze with namespace patterns (a policy's `collections:` globs expanded against the live
cluster, `-n` taking a glob too) and with the fleet options (--cluster/--all/--selector)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tests.analyze.kit import SHARDS, analyze, serve_cluster
from zonectl.cli.app import app

CLUSTER = (
    SHARDS
    + """
collections:
  - {ns: app.orders, key: {x: 1}, chunks: 4}
  - {ns: app.items, key: {x: 1}, chunks: 4}
  - {ns: shop.carts, key: {x: 1}, chunks: 4}
unsharded:
  - {ns: logs.web}
  - {ns: logs.api}
  - {ns: logs.v, type: view}
"""
)

POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
shards:
  s0: [a]
  s1: [a]
  s2: [b]
collections:
  "logs.*": {pin: b}
"""


def names(report: dict[str, Any]) -> list[str]:
    return sorted(c["namespace"] for c in report["collections"])


def test_a_policy_pattern_brings_in_the_namespaces_it_matches(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER, version="8.0")
    code, report, err = analyze(handle.uri, tmp_path, POLICY)
    assert code == 0, err
    # The two unsharded logs collections the pattern matches; never the view, never the glob.
    assert names(report) == [
        "app.items",
        "app.orders",
        "logs.api",
        "logs.web",
        "shop.carts",
    ]
    assert "logs.v matches pattern 'logs.*' but is a view" in err


def test_a_namespace_option_may_be_a_pattern(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    code, report, err = analyze(handle.uri, tmp_path, None, "-n", "app.*", "-n", "shop.carts")
    assert code == 0, err
    assert names(report) == ["app.items", "app.orders", "shop.carts"]


def test_a_namespace_pattern_matching_nothing_is_a_usage_error(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    result = CliRunner().invoke(app, ["analyze", "--uri", handle.uri, "-n", "nope.*"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert "error: --namespace 'nope.*' matches no namespace on the cluster" in result.stderr


def test_the_pattern_notes_come_before_an_unknown_namespace_error(
    sandbox_server: Any, tmp_path: Path
) -> None:
    # The notes of the policy's expansion are shown even when the run then stops on a typo.
    handle = serve_cluster(sandbox_server, CLUSTER, version="8.0")
    code, report, err = analyze(handle.uri, tmp_path, POLICY, "-n", "nope.*")
    assert (code, report) == (2, {})
    note = err.index("zonectl: logs.v matches pattern 'logs.*' but is a view")
    assert note < err.index("error: --namespace 'nope.*' matches no namespace"), err


def test_analyze_runs_once_per_selected_inventory_cluster(
    sandbox_server: Any, tmp_path: Path
) -> None:
    east = serve_cluster(sandbox_server, CLUSTER)
    west = serve_cluster(sandbox_server, SHARDS + "collections:\n  - {ns: app.w, key: {x: 1}}\n")
    inventory = tmp_path / "clusters.yaml"
    inventory.write_text(
        "apiVersion: zonectl/v1\nkind: ClusterInventory\nclusters:\n"
        "  - {name: east, uri: {env: A_EAST}, labels: {env: prod}}\n"
        "  - {name: west, uri: {env: A_WEST}, labels: {env: prod}}\n"
        "  - {name: lab, uri: {env: A_LAB}, labels: {env: lab}}\n",
        encoding="utf-8",
    )
    env = {"A_EAST": east.uri, "A_WEST": west.uri, "A_LAB": "mongodb://127.0.0.1:1/"}
    args = ["analyze", "--inventory", str(inventory), "--format", "json", "-n", "app.*"]
    result = CliRunner().invoke(app, [*args, "--selector", "env=prod"], env=env)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["kind"] == "fleet" and doc["command"] == "analyze"
    by_cluster = {c["cluster"]: c for c in doc["clusters"]}
    assert list(by_cluster) == ["east", "west"]
    assert names(by_cluster["east"]["output"]) == ["app.items", "app.orders"]
    assert names(by_cluster["west"]["output"]) == ["app.w"]
    one = CliRunner().invoke(app, [*args, "--cluster", "west"], env=env)
    assert one.exit_code == 0, one.stderr
    assert [c["cluster"] for c in json.loads(one.stdout)["clusters"]] == ["west"]
