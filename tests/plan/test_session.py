"""The application layer (zonectl.session) against a sandbox served over TCP: it prints
nothing and hands its warnings back as values, and `zonectl plan` renders exactly what it
returns (the command assembles nothing of its own)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.model.desired import CollectionPolicy, DesiredState, ZoneRange
from zonectl.mongo.connect import connect
from zonectl.policy import load_policy
from zonectl.render.forecast import forecast_dict
from zonectl.sandbox.uri import build_sandbox, parse
from zonectl.session.apply import ApplyPreparer
from zonectl.session.forecast import ForecastFlags
from zonectl.session.listeners import Footprint
from zonectl.session.plan import plan_and_forecast

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CLUSTER = FIXTURES / "cluster.yaml"
AT = "2026-01-10T00:00:00Z"
FLAGS = ForecastFlags(64 * 2**20, None, dt.UTC, "UTC")

if not app.registered_commands:
    register(app)


def _not_sharded(sandbox_server: Any) -> tuple[str, DesiredState]:
    """An 8.0 sandbox listing app.tracked as an unsharded collection, and a policy giving it
    ranges: the planner warns that app.tracked is not sharded."""
    sb = sandbox_server(sandbox=build_sandbox(parse(f"sandbox:{CLUSTER}?version=8.0")))
    sb.client.config.collections.insert_one(
        {"_id": "app.tracked", "key": {"_id": 1}, "unsplittable": True, "noBalance": False}
    )
    tracked = CollectionPolicy(
        "app.tracked", ranges=(ZoneRange("archive", {"_id": 0}, {"_id": 10}),)
    )
    desired = DesiredState(
        shards={"shard-std-0": frozenset({"archive"})}, collections={"app.tracked": tracked}
    )
    return sb.uri, desired


def test_the_plan_pipeline_prints_nothing_and_returns_its_warnings(
    sandbox_server: Any, capfd: pytest.CaptureFixture[str]
) -> None:
    uri, desired = _not_sharded(sandbox_server)
    counter = Footprint()
    with connect(uri, listeners=[counter]) as conn:
        capfd.readouterr()
        run = plan_and_forecast(
            conn, desired, dt.datetime.fromisoformat(AT), None, FLAGS, footprint=counter
        )
        printed = capfd.readouterr()
    assert (printed.out, printed.err) == ("", "")
    assert any("app.tracked is not sharded" in w for w in run.plan.warnings)
    assert run.footprint["round_trips"] > 0


def test_apply_prepares_without_printing_and_hands_the_warnings_back_first(
    sandbox_server: Any, capfd: pytest.CaptureFixture[str]
) -> None:
    uri, desired = _not_sharded(sandbox_server)
    with connect(uri) as conn:
        capfd.readouterr()
        preparer = ApplyPreparer(conn, desired, None, None, migrate=False)
        draft = preparer.draft()
        prepared = preparer.finish(draft)
        printed = capfd.readouterr()
    assert (printed.out, printed.err) == ("", "")
    assert any("app.tracked is not sharded" in w for w in draft.warnings)
    assert prepared.plan.ops == draft.plan.ops


def test_plan_renders_what_the_session_returns() -> None:
    uri = f"sandbox:{CLUSTER}?now={AT}"
    result = CliRunner().invoke(
        app, ["plan", str(FIXTURES / "changes"), "--uri", uri, "--format", "json"]
    )
    assert result.exit_code == 0, result.stderr
    shown = json.loads(result.stdout)
    desired = load_policy([FIXTURES / "changes"]).desired
    counter = Footprint()
    with connect(uri, listeners=[counter]) as conn:
        run = plan_and_forecast(conn, desired, None, None, FLAGS, footprint=counter)
    assert [op["kind"] for op in shown["ops"]] == [op.kind for op in run.plan.ops]
    assert shown["forecast"] == forecast_dict(run.forecast)
