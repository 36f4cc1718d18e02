"""`zonectl analyze --uri sandbox:` on the demo cluster reports findings a reviewer can act
on, in every format, and each figure names its source and confidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tests.analyze.kit  # noqa: F401 - registers the commands
from zonectl.cli.app import app


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["analyze", "--uri", "sandbox:", *args])
    return result.exit_code, result.stdout, result.stderr


def test_the_demo_reports_its_monotonic_and_skewed_keys() -> None:
    code, out, err = _run("--format", "json")
    assert code == 0, err
    report = json.loads(out)
    found = {(f["rule"], c["namespace"]) for c in report["collections"] for f in c["findings"]}
    assert found == {
        ("ZA103", "app.audit"),
        ("ZA104", "app.sessions"),
        # the demo's workload: sessions are read by sessionId, off the key; audit and
        # reports are not sampled
        ("ZA121", "app.sessions"),
        ("ZA124", "app.audit"),
        ("ZA124", "app.reports"),
    }
    for c in report["collections"]:
        for figure in c["figures"]:
            assert figure["source"] in {
                "analyzeShardKey", "config metadata", "$shardedDataDistribution", "changelog",
                "sampled queries",
            }  # fmt: skip
            assert figure["confidence"] in {"high", "medium", "low"}


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_demo_renders_findings_with_their_fix(fmt: str) -> None:
    code, out, _ = _run("--format", fmt)
    assert code == 0
    assert "ZA104" in out and "refineCollectionShardKey" in out


def test_the_demo_policy_adds_the_firehose_backlog() -> None:
    demo = Path(__file__).parents[2] / "policies" / "demo"
    code, out, err = _run(str(demo), "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    events = next(c for c in report["collections"] if c["namespace"] == "app.events")
    names = {f["name"] for f in events["figures"]}
    assert {"hot shard share of inserts", "hot backlog"} <= names
