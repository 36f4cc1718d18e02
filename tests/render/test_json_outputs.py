"""The JSON outputs zonectl writes with zonectl.render.json_indent are json.dumps's text: for
`plan --format json` (and the `--save-plan` file), `status --format json` and `explain
--format json` against a sandbox over TCP, the output is what json.dumps(indent=2) writes
for the very document it parses to (key order kept by json.loads), through the same
json_text step for plan and explain (ensure_ascii=False, active characters escaped)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.render.inert import json_text

FIXTURES = Path(__file__).resolve().parent.parent / "plan" / "fixtures"
URI = f"sandbox:{FIXTURES / 'cluster.yaml'}"
POLICY = str(FIXTURES / "changes")

if not app.registered_commands:
    register(app)


def zonectl(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def json_dumps_text(out: str, *, ensure_ascii: bool) -> str:
    text = json.dumps(json.loads(out), indent=2, ensure_ascii=ensure_ascii)
    return (text if ensure_ascii else json_text(text)) + "\n"


def test_plan_json_and_the_saved_plan_are_json_dumps_text(tmp_path: Path) -> None:
    saved = tmp_path / "plan.json"
    out = zonectl("plan", POLICY, "--uri", URI, "--format", "json", "--save-plan", str(saved))
    assert json.loads(out)["ops"], "the fixture's plan has ops"
    assert out == json_dumps_text(out, ensure_ascii=False)
    assert saved.read_text(encoding="utf-8") == out


@pytest.mark.parametrize(
    ("args", "ensure_ascii"),
    [(("status", POLICY), True), (("explain",), False)],
    ids=["status", "explain"],
)
def test_status_and_explain_json_are_json_dumps_text(
    args: tuple[str, ...], ensure_ascii: bool
) -> None:
    out = zonectl(*args, "--uri", URI, "--format", "json")
    assert out == json_dumps_text(out, ensure_ascii=ensure_ascii)
