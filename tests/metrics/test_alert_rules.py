"""deploy/prometheus/zonectl-alerts.yaml: it parses, every alert is documented, it uses
only metrics zonectl emits, and (with promtool) it passes `check rules` and its own unit
tests in zonectl-alerts.test.yaml."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import child_procs
import pytest
from metrics_kit import promtool
from ruamel.yaml import YAML

from zonectl.render.metrics import HELP

DIR = Path(__file__).resolve().parents[2] / "deploy" / "prometheus"
RULES = DIR / "zonectl-alerts.yaml"
FORECAST = "zonectl_namespace_compliance_forecast_timestamp_seconds"


def _rules() -> list[dict[str, Any]]:
    doc = YAML(typ="safe", pure=True).load(RULES.read_text(encoding="utf-8"))
    return [rule for group in doc["groups"] for rule in group["rules"]]


def test_the_rules_cover_rotation_drift_compliance_and_the_lease() -> None:
    alerts = {rule["alert"] for rule in _rules()}
    assert {
        "ZonectlRotationLate",
        "ZonectlDrift",
        "ZonectlComplianceStuck",
        "ZonectlLeaseStuck",
    } <= alerts


def test_every_alert_has_a_severity_a_summary_and_a_description() -> None:
    for rule in _rules():
        assert rule["labels"]["severity"] in {"warning", "critical"}, rule["alert"]
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]


def test_the_rules_reference_only_metrics_zonectl_emits() -> None:
    text = RULES.read_text(encoding="utf-8")
    used = set(re.findall(r"\bzonectl_[a-z0-9_]+\b", text))
    assert used, "no metric found"
    assert used <= set(HELP) - {FORECAST}, used - set(HELP)
    for rule in _rules():
        assert re.search(r"\bzonectl_[a-z0-9_]+\b", rule["expr"]), rule["alert"]


def _promtool(*args: str) -> subprocess.CompletedProcess[str]:
    tool = promtool()
    if tool is None:
        pytest.skip("promtool absent (.ci/run extracts it from Debian's prometheus package)")
    return child_procs.run(
        [tool, *args], cwd=DIR, capture_output=True, text=True, timeout=120, check=False
    )


def test_promtool_checks_the_rules() -> None:
    done = _promtool("check", "rules", RULES.name)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(_rules())} rules found" in done.stdout


def test_each_alert_fires_on_the_series_it_is_meant_for() -> None:
    done = _promtool("test", "rules", "zonectl-alerts.test.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
