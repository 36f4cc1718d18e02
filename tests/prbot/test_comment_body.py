"""The comment body, from real zonectl output: validate's annotations, a plan of the demo
policy against the sandbox, the analyzer hook, and GitHub's size limit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import child_procs
import pytest
from fakes import FakeGitHub

from zonectl.prbot.__main__ import main
from zonectl.prbot.body import MARKER, MAX_BODY, Report, build_comment, parse_annotations

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "policies" / "demo"


def _zonectl(*args: str) -> subprocess.CompletedProcess[str]:
    return child_procs.run(
        [sys.executable, "-m", "zonectl", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=False,
    )


@pytest.fixture(scope="module")
def demo_plan() -> str:
    done = _zonectl("plan", str(DEMO), "--uri", "sandbox:", "--format", "markdown")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_body_starts_with_the_marker_and_folds_the_full_plan(demo_plan: str) -> None:
    body = build_comment(Report(0, "", demo_plan, 4, commit="3f2a9c1d0e5b7a11", run_url="u"))
    assert body.startswith(MARKER + "\n")
    assert "**Validate:** passed." in body
    summary = next(line for line in body.splitlines() if line.startswith("**Plan:**"))
    assert "will migrate" in summary and "chunks" in summary  # the migration estimate
    assert "<details><summary>Full plan</summary>" in body and body.count("</details>") == 1
    # destructive changes are shown above the fold, not only inside it
    assert body.index("> [!WARNING]") < body.index("<details>")
    assert demo_plan.strip() in body
    assert "for 3f2a9c1d0e5b" in body and "[workflow run](u)" in body


def test_an_invalid_policy_lists_its_problems_and_plans_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "p.yaml"
    bad.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards: {s0: [hot]}\n"
        "collections:\n  app.x:\n    pin: hot\n    foo: 1\n",
        encoding="utf-8",
    )
    done = _zonectl("validate", str(bad), "--format", "github")
    assert done.returncode == 3
    body = build_comment(Report(3, done.stdout))
    assert "**Validate:** 1 error(s)" in body
    assert f'`{bad}:7:5` error: ZP110 unknown key "foo"' in body
    assert "<details>" not in body and "**Plan:**" not in body


def test_a_failed_plan_shows_its_error_and_no_plan() -> None:
    body = build_comment(Report(0, "", None, 1, plan_error="zonectl: error: cannot reach x\n"))
    assert "**Plan:** failed (exit 1)." in body
    assert "zonectl: error: cannot reach x" in body and "<details>" not in body


def test_analyzer_warnings_get_a_section_only_when_there_are_some(demo_plan: str) -> None:
    assert "Analyzer warnings" not in build_comment(Report(0, "", demo_plan, 4))
    assert "Analyzer warnings" not in build_comment(
        Report(0, "", demo_plan, 4, warnings_markdown=" \n")
    )
    body = build_comment(
        Report(0, "", demo_plan, 4, warnings_markdown="- `app.events`: monotonic key\n")
    )
    assert "#### Analyzer warnings\n\n- `app.events`: monotonic key" in body


def test_a_plan_too_big_for_a_comment_is_cut_with_its_code_block_closed() -> None:
    huge = "## zonectl plan\n\n**9999 to add.**\n\n```diff\n" + "+ a range\n" * 20_000 + "```\n"
    body = build_comment(Report(0, "", huge, 4))
    assert len(body) <= 65_536 and len(body) <= MAX_BODY
    assert "(truncated" in body and body.count("```") % 2 == 0


def test_long_warnings_and_long_destructive_lists_keep_the_body_under_the_limit() -> None:
    alert = "> [!WARNING]\n> **5000 destructive change(s)**\n>\n" + "> - range gone\n" * 5000
    plan = (
        f"## zonectl plan\n\n**5000 to remove.**\n\n{alert}\n```diff\n" + "- r\n" * 5000 + "```\n"
    )
    body = build_comment(Report(0, "", plan, 4, warnings_markdown="- warn\n" * 20_000))
    assert len(body) <= MAX_BODY
    assert "> - ... and" in body.split("<details>")[0]
    assert "*(truncated)*" in body


def test_annotations_are_read_back_with_their_position() -> None:
    line = "::error file=p.yaml,line=8,col=5,title=ZP110::unknown key%0Ahint: x"
    [problem] = parse_annotations(line)
    assert (problem.level, problem.where, problem.message) == (
        "error",
        "p.yaml:8:5",
        "ZP110 unknown key",
    )


def test_the_module_entry_point_posts_then_updates_through_the_ci_environment(
    tmp_path: Path, demo_plan: str
) -> None:
    (tmp_path / "validate.txt").write_text("", encoding="utf-8")
    (tmp_path / "plan.md").write_text(demo_plan, encoding="utf-8")
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps({"pull_request": {"number": 42, "head": {"sha": "abcdef123456789"}}})
    )
    env = {
        "GITHUB_TOKEN": "ghs_x",
        "GITHUB_REPOSITORY": "acme/policies",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_RUN_ID": "99",
    }
    argv = [
        "github", "--validate-exit", "0", "--validate-output", str(tmp_path / "validate.txt"),
        "--plan", str(tmp_path / "plan.md"), "--plan-exit", "4",
        "--warnings", str(tmp_path / "absent.md"),
    ]  # fmt: skip
    gh = FakeGitHub()
    gh.add("LGTM")
    assert main(argv, env, gh) == 0
    assert main(argv, env, gh) == 0
    assert [w[0] for w in gh.writes] == ["create"]  # the second run had nothing new to say
    (tmp_path / "absent.md").write_text("- a warning\n", encoding="utf-8")
    assert main(argv, env, gh) == 0
    assert [w[0] for w in gh.writes] == ["create", "update"]
    assert gh.comments[0]["body"] == "LGTM"
    ours = gh.comments[1]["body"]
    assert "for abcdef123456" in ours and "/acme/policies/actions/runs/99" in ours


def test_the_entry_point_says_what_is_missing_without_a_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "v.txt").write_text("", encoding="utf-8")
    argv = [
        "github",
        "--validate-exit",
        "0",
        "--validate-output",
        str(tmp_path / "v.txt"),
        "--number",
        "1",
    ]
    assert main(argv, {"GITHUB_REPOSITORY": "a/b"}, FakeGitHub()) == 1
    assert "$GITHUB_TOKEN is not set" in capsys.readouterr().err


def test_turning_sampling_on_is_a_change_not_a_destructive_one(demo_plan: str) -> None:
    """The demo plan turns query sampling of app.audit on: listed with the changes, not
    counted with the destructive ones (README and docs/review.md show the demo's 4)."""
    assert "~ query sampling off -> 2 samples/s" in demo_plan
    body = build_comment(Report(0, "", demo_plan, 4))
    warning = body[body.index("> [!WARNING]") : body.index("<details>")]
    bullets = [line for line in warning.splitlines() if line.startswith("> - ")]
    assert "> **4 destructive change(s)**" in warning and len(bullets) == 4
    assert "sampling" not in warning
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "> **4 destructive change(s)**" in readme
