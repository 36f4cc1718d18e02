"""explain's surface: -n (a typo or an unsharded name is exit 2 naming it), the three
formats, -o FILE, and a user refused $shardedDataDistribution gets reasons marked unknown
that name the privilege, not a crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tests.explain.kit import SHARDS, make_kit
from zonectl.cli.app import app
from zonectl.sandbox.auth.users import AuthConfig, User

S0, S1, S2 = SHARDS


def _kit(sandbox_server: Any, version: str = "7.0") -> Any:
    kit = make_kit(sandbox_server, version)
    kit.admin.command("addShardToZone", S2, zone="hot")
    kit.collection("app.events", [0, 50, 100], [S0, S0, S0, S1])
    kit.zone_range("app.events", 0, 100, "hot")
    kit.collection("app.users", [10, 20], [S0, S1, S2])
    return kit


def test_namespace_selects_and_an_unknown_one_exits_2_naming_it(sandbox_server: Any) -> None:
    kit = _kit(sandbox_server)
    doc = kit.explain("-n", "app.events")
    assert [c["ns"] for c in doc["collections"]] == ["app.events"]
    doc = kit.explain("-n", "app.*")
    assert [c["ns"] for c in doc["collections"]] == ["app.events", "app.users"]
    result = kit.explain("-n", "app.event", code=2)
    assert "--namespace app.event: no such namespace among the cluster's sharded collections" in (
        result.stderr
    )
    assert "did you mean app.events?" in result.stderr
    assert result.stdout == ""


def test_text_markdown_and_a_file(sandbox_server: Any, tmp_path: Path) -> None:
    kit = _kit(sandbox_server)
    runner = CliRunner()
    text = runner.invoke(app, ["explain", "--uri", kit.handle.uri], catch_exceptions=False)
    assert text.exit_code == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == (
        "explain at 2026-03-02T12:00:00Z: 2 sharded collections: 1 balanced, 1 moving"
    )
    assert lines[2].startswith("app.events: moving (forecast done by 2026-03-02T12:")
    assert lines[3].startswith("  zone-violation: 2 chunks outside their zone (e.g. hot on shard0)")
    assert lines[4].startswith("    fix: nothing to do: the balancer moves it")
    out = tmp_path / "explain.md"
    md = runner.invoke(app, ["explain", "--uri", kit.handle.uri, "-f", "markdown", "-o", str(out)])
    assert md.exit_code == 0 and md.stdout == ""
    page = out.read_text()
    assert "| `app.events` | moving | zone-violation |" in page
    assert "#### `app.events`: moving" in page


def test_a_user_refused_the_data_distribution_gets_unknown_reasons(sandbox_server: Any) -> None:
    """clusterManager reads the config database but not $shardedDataDistribution
    (clusterMonitor's): the data-size rule is marked unknown, naming what was refused."""
    users = AuthConfig(
        users=[User("ops", "admin", "pw", ("clusterManager",))],
        iterations_sha256=4096,
        iterations_sha1=4096,
    )
    kit = make_kit(lambda version: sandbox_server(version, auth=users), "7.0")
    kit.collection("app.users", [10, 20], [S0, S1, S2])
    uri = str(kit.handle.uri).replace("mongodb://", "mongodb://ops:pw@")
    result = CliRunner().invoke(app, ["explain", "--uri", uri, "-f", "json"])
    assert result.exit_code == 0, result.stderr
    (coll,) = json.loads(result.stdout)["collections"]
    unknown = {r["code"]: r["message"] for r in coll["reasons"] if r.get("unknown")}
    assert set(unknown) == {"below-threshold", "range-deletions-pending"}
    assert "$shardedDataDistribution was refused" in unknown["below-threshold"]
    assert "clusterMonitor" in unknown["below-threshold"]


def test_a_policy_given_reads_the_window_in_its_balancer_timezone(
    sandbox_server: Any, tmp_path: Path
) -> None:
    """As status and plan's forecast read it: 23:00-06:00 is closed at 12:00 UTC but open at
    04:00 in Los Angeles; --balancer-tz still wins; an invalid policy is exit 3."""
    kit = _kit(sandbox_server)
    kit.setting("balancer", activeWindow={"start": "23:00", "stop": "06:00"})
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\nbalancer: {timezone: America/Los_Angeles}\n",
        encoding="utf-8",
    )
    assert kit.states("-n", "app.events")["app.events"][0] == "waiting"
    assert kit.states(str(policy), "-n", "app.events")["app.events"][0] == "moving"
    utc = kit.states(str(policy), "-n", "app.events", "--balancer-tz", "UTC")
    assert utc["app.events"] == ("waiting", ["outside-window", "zone-violation"])
    policy.write_text("apiVersion: zonectl/v1\nkind: ZonePolicy\nbalancer: {timezone: Nowhere}\n")
    result = kit.explain(str(policy), code=3)
    assert "Nowhere" in result.stdout + result.stderr
