"""`plan` and `status` forecast time to compliance by the balancer and by `apply --migrate`
(text, markdown, JSON) with the cost model they used; bad --copy-rate, --parallel and
--balancer-tz are usage errors before any I/O."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from six_shards import CLUSTER, POLICY
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)

MIB = 1024 * 1024
AT = "2026-03-02T12:00:00+00:00"


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def _files(tmp_path: Path, policy: str = POLICY) -> tuple[str, str]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "policy.yaml").write_text(policy)
    return str(tmp_path / "policy.yaml"), f"sandbox:{tmp_path / 'cluster.yaml'}"


def test_plan_json_forecasts_both_routes_with_its_assumptions(tmp_path: Path) -> None:
    policy, uri = _files(tmp_path)
    result = run("plan", policy, "--uri", uri, "-f", "json", "--copy-rate", "8MiB/s", "--at", AT)
    assert result.exit_code == 0, result.stderr
    f = json.loads(result.stdout)["forecast"]
    assert (f["chunks"], f["bytes"]) == (12, 12 * 32 * MIB)
    assert f["assumed"]["copy_rate_bytes_per_s"] == 8 * MIB and f["assumed"]["parallel"] == 6
    # No history: the assumed fixed second per migration, and the rate the flag gave.
    assert (f["cost"]["source"], f["cost"]["fixed_seconds"]) == ("--copy-rate", 1.0)
    # 3 hot donors, 1 + 4 s per 32 MiB chunk: 4 waves of 3 moves.
    assert f["migrate"]["seconds"] == pytest.approx(20.0)
    assert f["migrate"]["at"] == "2026-03-02T12:00:20+00:00"
    # Balancer rounds of 3 migrations, 5 s each, 1 s between rounds.
    assert f["balancer"]["seconds"] == pytest.approx(23.0)
    assert [b["shard"] for b in f["backlog"]] == ["h0", "h1", "h2"]


def test_plan_text_and_markdown_show_the_forecast(tmp_path: Path) -> None:
    policy, uri = _files(tmp_path)
    text = run("plan", policy, "--uri", uri, "--copy-rate", "8MiB/s", "--at", AT)
    assert "Forecast: 12 chunks, 384.0 MiB to move" in text.stdout
    assert "app.e: 12 chunks, 384.0 MiB; --migrate 20s (at 2026-03-02 12:00 UTC)" in text.stdout
    assert "cost: copy rate 8.0 MiB/s per migration (--copy-rate)" in text.stdout
    md = run("plan", policy, "--uri", uri, "-f", "markdown", "--at", AT)
    assert "### Forecast" in md.stdout and "| `app.e` | 12 |" in md.stdout


def test_status_shows_each_donors_backlog_and_when_it_drains(tmp_path: Path) -> None:
    policy, uri = _files(tmp_path)
    uri += f"?state={tmp_path / 'state.json'}"
    assert run("apply", policy, "--uri", uri, "--yes").exit_code == 0  # ranges only
    result = run("status", "--uri", uri, "--copy-rate", "8MiB/s", "--balancer-tz", "UTC")
    assert result.exit_code == 0, result.stderr
    assert "backlog on h0: 4 chunks, 128.0 MiB belong elsewhere" in result.stdout
    doc = json.loads(run("status", "--uri", uri, "-f", "json").stdout)
    assert doc["forecast"]["chunks"] == 12
    assert doc["forecast"]["backlog"][0]["balancer_drained_at"] is not None


def test_a_balancer_window_in_the_config_servers_zone_delays_the_balancer_route(
    tmp_path: Path,
) -> None:
    windowed = POLICY.replace(
        "collections:", 'balancer: {activeWindow: {start: "01:00", stop: "03:00"}}\ncollections:'
    )
    policy, uri = _files(tmp_path, windowed)
    args = ["plan", policy, "--uri", uri, "-f", "json", "--copy-rate", "8MiB/s", "--at", AT]
    utc = json.loads(run(*args).stdout)["forecast"]["balancer"]
    tokyo = json.loads(run(*args, "--balancer-tz", "Asia/Tokyo").stdout)["forecast"]["balancer"]
    assert utc["at"] == "2026-03-03T01:00:23+00:00"
    assert tokyo["at"] == "2026-03-02T16:00:23+00:00"  # 01:00 in Tokyo is 16:00 UTC


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--copy-rate", "-1MB/s"], "--copy-rate: '-1MB/s' is not a copy rate"),
        (["--copy-rate", "quick"], "--copy-rate: 'quick' is not a copy rate"),
        (["--parallel", "0"], "--parallel 0: must be at least 1"),
        (["--balancer-tz", "Nowhere/City"], "unknown time zone 'Nowhere/City'"),
    ],
)
@pytest.mark.parametrize("command", ["plan", "status"])
def test_bad_forecast_options_are_usage_errors_before_anything_is_sent(
    tmp_path: Path, command: str, args: list[str], message: str
) -> None:
    policy, _uri = _files(tmp_path)
    # An address nothing listens on: reaching the network would be exit 1, not 2.
    paths = [policy] if command == "plan" else []
    result = run(command, *paths, "--uri", "mongodb://127.0.0.1:9", *args)
    assert result.exit_code == 2, result.stderr
    assert message in result.stderr
