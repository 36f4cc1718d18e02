"""The policy's `balancer.timezone` states the zone in which the config server reads
`activeWindow`: the forecast and the metrics read the window in it, --balancer-tz (or
$ZONECTL_CONFIG_TIMEZONE) overrides it, validation refuses an unknown zone at file:line:col,
and `zonectl schema` describes it."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from six_shards import CLUSTER, POLICY
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)

AT = "2026-03-02T12:00:00+00:00"
WINDOW = 'activeWindow: {start: "01:00", stop: "03:00"}'


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


def _files(tmp_path: Path, balancer: str) -> tuple[str, str]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    policy = POLICY.replace("collections:", f"balancer:\n{balancer}collections:")
    (tmp_path / "policy.yaml").write_text(policy)
    return str(tmp_path / "policy.yaml"), f"sandbox:{tmp_path / 'cluster.yaml'}"


def _balancer_route(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    result = run(*args, "-f", "json", "--copy-rate", "8MiB/s", "--at", AT, env=env)
    assert result.exit_code == 0, result.stderr
    forecast = json.loads(result.stdout)["forecast"]
    return {"at": forecast["balancer"]["at"], **forecast["assumed"]["balancer_window"]}


def test_the_policy_states_the_zone_of_the_window_and_the_flag_overrides_it(
    tmp_path: Path,
) -> None:
    # The balancer route takes 23 s from the window's opening: 4 rounds of 3 migrations of
    # 1 s (assumed fixed part) + 32 MiB at 8 MiB/s, 1 s apart.
    policy, uri = _files(tmp_path, f"  timezone: Asia/Tokyo\n  {WINDOW}\n")
    tokyo = _balancer_route("plan", policy, "--uri", uri)
    assert tokyo["at"] == "2026-03-02T16:00:23+00:00"  # 01:00 in Tokyo is 16:00 UTC
    assert tokyo["timezone"] == "Asia/Tokyo"
    utc = _balancer_route("plan", policy, "--uri", uri, "--balancer-tz", "UTC")
    assert utc["at"] == "2026-03-03T01:00:23+00:00" and utc["timezone"] == "UTC"
    berlin = _balancer_route(
        "plan", policy, "--uri", uri, env={"ZONECTL_CONFIG_TIMEZONE": "Europe/Berlin"}
    )
    assert berlin["at"] == "2026-03-03T00:00:23+00:00"  # 01:00 CET is 00:00 UTC
    assert berlin["timezone"] == "Europe/Berlin"


def test_a_zone_without_a_window_changes_nothing_on_the_cluster(tmp_path: Path) -> None:
    policy, uri = _files(tmp_path, "  timezone: Asia/Tokyo\n")
    result = run("plan", policy, "--uri", uri, "-f", "json")
    assert result.exit_code == 0, result.stderr
    kinds = {op["kind"] for op in json.loads(result.stdout)["ops"]}
    assert "assign_zone_range" in kinds
    assert not any("balanc" in kind or "window" in kind for kind in kinds)


def test_the_metrics_read_the_window_in_the_policys_zone(tmp_path: Path) -> None:
    # The sandbox's clock is the real now. A window from an hour before to two hours after
    # now in Tokyo (UTC+9, no DST) holds now; read in UTC it lies 8-11 hours ahead.
    tokyo = dt.datetime.now(dt.UTC).hour + 9
    start, stop = f"{(tokyo - 1) % 24:02d}:00", f"{(tokyo + 2) % 24:02d}:00"
    window = f'activeWindow: {{start: "{start}", stop: "{stop}"}}'
    policy, _ = _files(tmp_path, f"  timezone: Asia/Tokyo\n  {window}\n")
    state = tmp_path / "state.json"
    uri = f"sandbox:{tmp_path / 'cluster.yaml'}?state={state}"
    assert run("apply", policy, "--uri", uri, "--yes").exit_code == 0

    def in_window(*extra: str) -> str:
        result = run("status", policy, "--uri", uri, "--format", "openmetrics", *extra)
        assert result.exit_code == 0, result.stderr
        line = next(x for x in result.stdout.splitlines() if x.startswith("zonectl_balancer_in"))
        return line.rsplit(" ", 1)[1]

    assert in_window() == "1"
    assert in_window("--balancer-tz", "UTC") == "0"


def test_an_unknown_zone_is_a_policy_error_at_its_line(tmp_path: Path) -> None:
    policy, _ = _files(tmp_path, f"  timezone: Asia/Tokio\n  {WINDOW}\n")
    result = run("validate", policy)
    assert result.exit_code == 3
    assert "policy.yaml:5:13: error ZP503" in result.stderr
    assert 'balancer timezone "Asia/Tokio" is not a known IANA time zone' in result.stderr
    assert 'did you mean "Asia/Tokyo"?' in result.stderr


def test_the_schema_describes_the_zone() -> None:
    result = run("schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    balancer = schema["$defs"]["BalancerModel"]["properties"]
    assert "activeWindow" in balancer["timezone"]["description"]


def test_a_directory_of_the_zone_database_is_an_unknown_zone_not_an_internal_error(
    tmp_path: Path,
) -> None:
    # `Europe` is a directory of the tz database: opening it raised IsADirectoryError, which
    # reached the user as an internal error (exit 1) from validate, plan and --balancer-tz.
    policy, _ = _files(tmp_path, f"  timezone: Europe\n  {WINDOW}\n")
    result = run("validate", policy)
    assert result.exit_code == 3, result.stderr
    assert 'error ZP503 balancer timezone "Europe" is not a known IANA time zone' in result.stderr
    policy, uri = _files(tmp_path, f"  {WINDOW}\n")
    result = run("plan", policy, "--uri", uri, "--at", AT, "--balancer-tz", "Europe")
    assert result.exit_code == 2, result.stderr
    assert "--balancer-tz: unknown time zone 'Europe'" in result.stderr
    assert "internal error" not in result.stderr


def test_every_command_reads_the_policys_zone_by_the_same_rule(tmp_path: Path) -> None:
    # `utc` passed validate and the forecast (UTC in any case), while the metrics refused
    # it with exit 2 and blamed ZONECTL_CONFIG_TIMEZONE, which nobody had set.
    policy, uri = _files(tmp_path, f"  timezone: utc\n  {WINDOW}\n")
    assert run("validate", policy).exit_code == 0
    assert _balancer_route("plan", policy, "--uri", uri)["at"] == "2026-03-03T01:00:23+00:00"
    result = run("status", policy, "--uri", uri, "--format", "openmetrics")
    assert result.exit_code == 0, result.stderr
    assert "zonectl_balancer_in_window" in result.stdout
