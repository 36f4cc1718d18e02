"""The comment can carry `zonectl explain` of the namespaces the plan changes: the GitHub
action's step (deploy/github/action/action.yml) takes them from the plan it saved and runs
explain once; the bot folds its markdown under the verdict, above the full plan, and only
when the file is there and not empty. All from real zonectl runs against a pinned sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import child_procs
import pytest
from ruamel.yaml import YAML

from zonectl.prbot.__main__ import main
from zonectl.prbot.body import EXPLAIN_TITLE, MAX_BODY, Report, build_comment

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "policies" / "demo"
ACTION = ROOT / "deploy" / "github" / "action" / "action.yml"
URI = "sandbox:?now=2026-11-23T17:01:00Z"
STEP = "Explain the namespaces the plan changes"
CHANGED = ("app.audit", "app.events", "app.reports", "app.users")  # the demo plan's


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return child_procs.run(
        args, capture_output=True, text=True, timeout=300, cwd=cwd, env=env, check=False
    )


@pytest.fixture(scope="module")
def ci_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """$RUNNER_TEMP after the action's plan and explain steps: plan of the demo saved, then
    the explain step's own script, with `zonectl` and `python` this interpreter."""
    temp = tmp_path_factory.mktemp("runner")
    bindir = temp / "bin"
    bindir.mkdir()
    for name, exe in (("zonectl", f"{sys.executable} -m zonectl"), ("python", sys.executable)):
        (bindir / name).write_text(f'#!/bin/sh\nexec {exe} "$@"\n', encoding="utf-8")
        (bindir / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}", "RUNNER_TEMP": str(temp),
           "GITHUB_STEP_SUMMARY": str(temp / "summary.md"), "INPUT_URI": URI,
           "POLICIES": str(DEMO)}  # fmt: skip
    plan = _run(
        ["zonectl", "plan", str(DEMO), "--uri", URI, "--format", "markdown",
         "--save-plan", str(temp / "zonectl-plan.json"), "-o", str(temp / "zonectl-plan.md")],
        temp, env,
    )  # fmt: skip
    assert plan.returncode == 0, plan.stderr
    steps = YAML(typ="safe", pure=True).load(ACTION.read_text(encoding="utf-8"))["runs"]["steps"]
    [script] = [s["run"] for s in steps if s.get("name") == STEP]
    done = _run(["bash", "-e", "-c", script], temp, env)
    assert done.returncode == 0, done.stdout + done.stderr
    return temp


def test_the_action_explains_every_namespace_the_plan_changes(ci_run: Path) -> None:
    explain = (ci_run / "zonectl-explain.md").read_text(encoding="utf-8")
    assert explain.startswith("### zonectl explain")
    assert "4 sharded collections" in explain
    for ns in CHANGED:
        assert f"| `{ns}` |" in explain
    assert explain in (ci_run / "summary.md").read_text(encoding="utf-8")


def test_the_bot_folds_the_explain_above_the_full_plan(ci_run: Path) -> None:
    (ci_run / "validate.txt").write_text("", encoding="utf-8")
    argv = [
        "github", "--validate-exit", "0", "--validate-output", str(ci_run / "validate.txt"),
        "--plan", str(ci_run / "zonectl-plan.md"), "--plan-exit", "4",
        "--explain", str(ci_run / "zonectl-explain.md"),
        "--body-out", str(ci_run / "body.md"), "--dry-run",
    ]  # fmt: skip
    assert main(argv, {}) == 0
    body = (ci_run / "body.md").read_text(encoding="utf-8")
    explain = (ci_run / "zonectl-explain.md").read_text(encoding="utf-8").strip()
    assert f"<details><summary>{EXPLAIN_TITLE}</summary>\n\n{explain}\n\n</details>" in body
    assert body.index(EXPLAIN_TITLE) < body.index("<summary>Full plan</summary>")
    assert body.index("**Plan:**") < body.index(EXPLAIN_TITLE)


def test_no_explain_section_without_a_file_or_with_an_empty_one(
    ci_run: Path, tmp_path: Path
) -> None:
    plan = (ci_run / "zonectl-plan.md").read_text(encoding="utf-8")
    assert EXPLAIN_TITLE not in build_comment(Report(0, "", plan, 4))
    assert EXPLAIN_TITLE not in build_comment(Report(0, "", plan, 4, explain_markdown=" \n"))
    (tmp_path / "validate.txt").write_text("", encoding="utf-8")
    argv = [
        "github", "--validate-exit", "0", "--validate-output", str(tmp_path / "validate.txt"),
        "--plan", str(ci_run / "zonectl-plan.md"), "--plan-exit", "4",
        "--explain", str(tmp_path / "absent.md"), "--body-out", str(tmp_path / "b.md"),
        "--dry-run",
    ]  # fmt: skip
    assert main(argv, {}) == 0
    assert EXPLAIN_TITLE not in (tmp_path / "b.md").read_text(encoding="utf-8")


def test_a_long_explain_is_cut_and_the_body_stays_under_the_limit(ci_run: Path) -> None:
    plan = (ci_run / "zonectl-plan.md").read_text(encoding="utf-8")
    rows = "".join(f"| `app.c{i:05d}` | stuck | balancer-off |  |\n" for i in range(20_000))
    huge = "### zonectl explain\n\n| collection | state | first reason | forecast done |\n" + rows
    body = build_comment(Report(0, "", plan, 4, explain_markdown=huge))
    assert len(body) <= MAX_BODY
    assert "*(truncated: the full explain is in the job summary and artifacts)*" in body
    assert plan.strip() in body  # the plan keeps its room
