"""Golden cases: tests/cases/<name>/{policy.yaml, state.json} -> expected.{txt,json,md}
(or expected.err for a plan-time error). Regenerate with `pytest tests/plan --regen-golden`;
never edit the expected files by hand.

state.json is extended JSON: {version, at, shards, collections, tags, balancer, chunks}
with config documents as the server stores them; `chunks` (each with `ns`) stand in for
the targeted impact queries.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from bson import json_util

from zonectl.errors import PlanError
from zonectl.mongo.state import build_cluster_state
from zonectl.plan.impact import make_impacts
from zonectl.plan.ops import AssignZoneRange, RemoveZoneRange
from zonectl.plan.planner import make_plan
from zonectl.policy import load_policy
from zonectl.render import render_json, render_markdown, render_text

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"
CASES = sorted(p for p in CASES_DIR.iterdir() if (p / "policy.yaml").is_file())
OPTS = json_util.CANONICAL_JSON_OPTIONS.with_options(tz_aware=True, tzinfo=dt.UTC)


def run_case(case: Path) -> dict[str, str]:
    from zonectl.firehose import boundary_value, parse_instant

    state: dict[str, Any] = json_util.loads((case / "state.json").read_text(), json_options=OPTS)
    desired = load_policy([Path("policy.yaml")]).desired
    actual = build_cluster_state(
        version=state.get("version", "7.0.14"),
        fcv=None,
        shards=state.get("shards", []),
        tags=state.get("tags", []),
        collections=state.get("collections", []),
        balancer=state.get("balancer"),
    )
    at = parse_instant(state.get("at", "2026-01-10T12:00:00Z"))
    boundaries = {
        ns: boundary_value(cp.firehose, at)
        for ns, cp in desired.collections.items()
        if cp.firehose is not None
    }
    try:
        plan = make_plan(desired, actual, boundaries=boundaries, at=at)
    except PlanError as exc:
        return {"expected.err": exc.text + "\n"}
    chunks = state.get("chunks", [])
    by_op = {
        i: [c for c in chunks if c["ns"] == op.ns]
        for i, op in enumerate(plan.ops)
        if isinstance(op, AssignZoneRange | RemoveZoneRange) and op.ns in actual.collections
    }
    plan = plan.with_impacts(make_impacts(plan, actual, by_op, {}))
    return {
        "expected.txt": render_text(plan),
        "expected.json": render_json(plan),
        "expected.md": render_markdown(plan),
    }


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_case(case: Path, regen_golden: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(case)  # policy paths in the output stay relative and machine-independent
    outputs = run_case(case)
    if regen_golden:
        for stale in case.glob("expected.*"):
            stale.unlink()
        for name, text in outputs.items():
            (case / name).write_text(text, encoding="utf-8")
        return
    expected = {p.name: p.read_text(encoding="utf-8") for p in case.glob("expected.*")}
    assert expected, f"{case.name} has no expected output; run pytest tests/plan --regen-golden"
    assert outputs == expected
