"""`zonectl rotate --all --yes` as one cron job over a fleet: each reachable cluster's
windows move under its own lease, an unreachable one fails alone, and a second run sends
nothing and exits 0."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fleet_kit import zonectl

from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "tests" / "rotate" / "fixtures" / "firehose-policy.yaml"
CLUSTER = Path(seed.__file__).resolve().parent / "data" / "firehose.yaml"
AT = ("--at", "2026-03-02T00:05:00Z")


def firehose_cluster() -> Sandbox:
    sandbox = Sandbox("7.0")
    seed.seed(sandbox, seed.load(CLUSTER), str(CLUSTER))
    return sandbox


def test_rotate_all_moves_every_reachable_cluster_and_reports_the_unreachable_one(
    sandbox_server: Callable[..., Any], closed_port: int, write_inventory: Callable[[str], Path]
) -> None:
    one, two = (
        sandbox_server(sandbox=firehose_cluster()),
        sandbox_server(sandbox=firehose_cluster()),
    )
    dead = f"mongodb://127.0.0.1:{closed_port}/?serverSelectionTimeoutMS=300"
    path = write_inventory(
        "apiVersion: zonectl/v1\nkind: ClusterInventory\nclusters:\n"
        f'  - {{name: one, uri: {{value: "{one.uri}"}}, labels: {{ok: "yes"}}}}\n'
        f'  - {{name: two, uri: {{value: "{two.uri}"}}, labels: {{ok: "yes"}}}}\n'
        f'  - {{name: dead, uri: {{value: "{dead}"}}}}\n'
    )
    args = ("rotate", str(POLICY), "--inventory", str(path), *AT, "--yes")
    code, out, err = zonectl(*args, "--all")
    assert code == 1
    for name, handle in (("one", one), ("two", two)):
        assert f"=== cluster {name}: ok ===\napp." in out
        assert f"[{name}] zonectl: rotated 2 window(s): 8/8 op(s)" in err
        zones = [t["tag"] for t in handle.client.config.tags.find({"ns": "app.events"})]
        assert sorted(zones) == ["archive", "hot"]
    assert "=== cluster dead: failed ===" in out
    again, out, err = zonectl(*args, "--selector", "ok=yes")
    assert again == 0
    assert out == "=== cluster one: ok ===\n=== cluster two: ok ===\n"  # nothing was due
