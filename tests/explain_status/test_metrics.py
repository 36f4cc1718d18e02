"""The metrics carry each sharded namespace's explain state (one series per state: 1 for
its own, 0 for the others, so the value changes when the state does) and a series per
reason: `zonectl status --format openmetrics` on a sandbox whose balancer is off, then on."""

from __future__ import annotations

from typing import Any

from typer.testing import CliRunner

from tests.explain.kit import SHARDS, make_kit
from tests.metrics.metrics_kit import samples
from zonectl.cli.app import app

S0, S1, S2 = SHARDS
STATE = "zonectl_collection_balancer_state"
REASON = "zonectl_collection_balancer_reason"


def _series(uri: str) -> tuple[dict[str, dict[str, float]], dict[str, set[str]]]:
    """(ns -> state -> value, ns -> reason codes)."""
    result = CliRunner().invoke(
        app, ["status", "--uri", uri, "--format", "openmetrics"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    states: dict[str, dict[str, float]] = {}
    reasons: dict[str, set[str]] = {}
    for (name, labels), v in samples(result.stdout.removesuffix("# EOF\n")).items():
        label = dict(labels)
        assert "cluster" in label
        if name == STATE:
            states.setdefault(label["namespace"], {})[label["state"]] = v
        elif name == REASON:
            assert v == 1
            reasons.setdefault(label["namespace"], set()).add(label["code"])
    return states, reasons


def test_the_state_series_flips_and_the_reasons_follow(sandbox_server: Any) -> None:
    kit = make_kit(sandbox_server, "7.0")
    kit.admin.command("addShardToZone", S2, zone="hot")
    kit.collection("t.zoned", [0, 50, 100], [S0, S0, S0, S1])
    kit.zone_range("t.zoned", 0, 100, "hot")
    kit.collection("t.even", [10, 20], [S0, S1, S2])
    kit.admin.command("balancerStop")
    states, reasons = _series(kit.handle.uri)
    assert states["t.zoned"] == {"balanced": 0, "moving": 0, "waiting": 0, "stuck": 1}
    assert reasons["t.zoned"] == {"balancer-off", "zone-violation"}
    assert states["t.even"] == {"balanced": 1, "moving": 0, "waiting": 0, "stuck": 0}
    assert "balancer-off" not in reasons.get("t.even", set())
    kit.admin.command("balancerStart")
    states, reasons = _series(kit.handle.uri)
    assert states["t.zoned"] == {"balanced": 0, "moving": 1, "waiting": 0, "stuck": 0}
    assert reasons["t.zoned"] == {"zone-violation"}
