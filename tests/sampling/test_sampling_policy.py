"""`sampling:` in a policy, through the CLI against the sandbox over TCP: plan shows the
change, apply runs configureQueryAnalyzer, the next plan is empty; sampled collections the
policy does not name are reported as unmanaged; 6.0 gets a message and no write; export
writes the setting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.analyze.kit import SHARDS, serve_cluster
from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)

CLUSTER = (
    SHARDS
    + """
collections:
  - {ns: app.u, key: {userId: 1}, chunks: 4, keys: {type: int, start: 0, step: 1000}}
  - {ns: app.o, key: {orderId: 1}, chunks: 2, keys: {type: int, start: 0, step: 1000}}
unsharded:
  - {ns: app.v, type: view}
  - {ns: app.m, type: timeseries}
"""
)
POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
collections:
  app.u:
    sampling: {samplesPerSecond: 5}
"""


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _policy(tmp_path: Path, text: str = POLICY) -> str:
    path = tmp_path / "policy.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_policy_turns_sampling_on_and_the_next_plan_is_empty(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    policy = _policy(tmp_path)
    code, out, _ = _cli(
        "plan", policy, "--uri", handle.uri, "--format", "json", "--detailed-exitcode"
    )
    assert code == 4
    ops = json.loads(out)["ops"]
    assert [(o["kind"], o["description"]) for o in ops] == [
        ("set_query_analyzer", "sample 5 queries/s of app.u")
    ]
    code, _, err = _cli("apply", policy, "--uri", handle.uri, "--yes")
    assert code == 0, err
    doc = handle.client.config.queryAnalyzers.find_one({"ns": "app.u"})
    assert doc["mode"] == "full" and doc["samplesPerSecond"] == 5
    assert _cli("plan", policy, "--uri", handle.uri, "--detailed-exitcode")[0] == 0
    off = POLICY.replace("{samplesPerSecond: 5}", "off")
    code, out, _ = _cli("plan", _policy(tmp_path, off), "--uri", handle.uri, "--detailed-exitcode")
    assert code == 4 and "query sampling 5 samples/s -> off" in out


def test_a_sampled_collection_the_policy_does_not_name_is_unmanaged(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    handle.client.admin.command(
        {"configureQueryAnalyzer": "app.o", "mode": "full", "samplesPerSecond": 2}
    )
    _, out, _ = _cli("plan", _policy(tmp_path), "--uri", handle.uri, "--format", "json")
    unmanaged = json.loads(out)["unmanaged"]
    assert {"kind": "sampling", "name": "app.o", "detail": "query sampling on at 2 samples/s"} in [
        {k: u[k] for k in ("kind", "name", "detail")} for u in unmanaged
    ]
    assert all(o.get("namespace") != "app.o" for o in json.loads(out)["ops"])


def test_before_7_0_the_policy_line_gets_a_message_and_nothing_is_written(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER, version="6.0")
    code, out, err = _cli("apply", _policy(tmp_path), "--uri", handle.uri, "--yes")
    assert code == 0
    assert "policy.yaml:5:5: `sampling` of app.u needs MongoDB 7.0+" in err + out
    assert "config.queryAnalyzers" not in handle.client.config.list_collection_names()


@pytest.mark.parametrize(("ns", "what"), [("app.v", "a view"), ("app.m", "a time-series")])
def test_sampling_a_view_or_time_series_is_a_plan_error_at_the_policy_line(
    sandbox_server: Any, tmp_path: Path, ns: str, what: str
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    text = POLICY.replace("app.u:", f"{ns}:")
    code, _, err = _cli("plan", _policy(tmp_path, text), "--uri", handle.uri)
    assert code != 0 and f"policy.yaml:5:5: {ns} is {what}" in err


def test_export_writes_the_sampling_setting(sandbox_server: Any) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    handle.client.admin.command(
        {"configureQueryAnalyzer": "app.u", "mode": "full", "samplesPerSecond": 3}
    )
    code, out, _ = _cli("export", "--uri", handle.uri)
    assert code == 0 and "sampling: {samplesPerSecond: 3}" in out
