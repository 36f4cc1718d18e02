"""The README cannot rot: every command it shows is run here, in order, in a scratch
directory, as a newcomer would type it (exit codes from trailing `# exit N` comments,
0 otherwise); its policy example validates; its command table matches the real CLI."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import child_procs
import pytest
from docs_kit import ROOT, blocks, commands, run, run_blocks, scratch
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"
VENV = "python3 -m venv .venv && "  # how both set-up commands start


def shell_lines() -> list[str]:
    return [c.line for b in blocks(README.read_text()) if b.runs for c in commands(b)]


def yaml_blocks(text: str) -> list[str]:
    return [b.body for b in blocks(text) if b.lang == "yaml"]


@pytest.fixture
def readme_scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A directory with the repository's policies (the README's paths start there)."""
    return scratch(tmp_path, ROOT / "policies")


def test_the_setup_commands_work_as_written(readme_scratch: tuple[Path, dict[str, str]]) -> None:
    """Both create `.venv` (a distribution's python3 refuses a bare `pip install`, PEP 668)
    and install into it; creating it is CI's job (.ci/run runs the test command verbatim),
    so here `.venv/bin/zonectl` is this interpreter's zonectl and the demo plan runs."""
    cwd, env = readme_scratch
    setup = [line for line in shell_lines() if line.startswith(VENV)]
    assert setup == [
        f"{VENV}.venv/bin/pip install . && .venv/bin/zonectl plan policies/demo --uri sandbox:",
        f"{VENV}.venv/bin/pip install -e '.[test]' && .venv/bin/pytest -n 2",
    ]
    ci_lines = [line.strip() for line in CI.read_text().splitlines()]
    assert setup[1] in ci_lines, ".ci/run must run the README's test command as written"
    assert ci_lines[-1] == setup[1], "...last, so its summary closes CI's output"
    venv_bin = cwd / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "zonectl").symlink_to(cwd / "bin" / "zonectl")
    result = run(setup[0].rsplit("&&", 1)[1], cwd, env)
    assert result.returncode == 0, result.stderr
    assert "6 to add, 2 to remove" in result.stdout
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    test_deps = " ".join(extras["optional-dependencies"]["test"])
    assert "pytest>" in test_deps and "pytest-xdist" in test_deps  # `-n 2` needs xdist


def test_every_tour_command_runs_in_order_with_its_exit_code(
    readme_scratch: tuple[Path, dict[str, str]],
) -> None:
    cwd, env = readme_scratch
    tour = [b for b in blocks(README.read_text()) if b.checked and not b.body.startswith(VENV)]
    assert commands(tour[0])[0].line.startswith("export ZONECTL_URI=")
    ran = run_blocks("README.md", tour, cwd, env)
    outputs = dict(ran)
    # A newcomer following only the README reaches a converged cluster and sees it.
    assert "all scanned namespaces comply with their zones" in outputs["zonectl status"]
    assert outputs["zonectl rotate policies/demo --yes"] == ""  # nothing due after apply
    moved = outputs["zonectl status -n app.events"]
    assert 'ISODate("2030-01-02T00:00:00.000Z")' in moved
    assert "not compliant: app.events" in moved
    assert (cwd / "tour.json").exists() and (cwd / "mine.yaml").exists()


def test_the_policy_example_validates(tmp_path: Path) -> None:
    [example] = yaml_blocks(README.read_text())
    (tmp_path / "example.yaml").write_text(example)
    result = child_procs.run(
        [sys.executable, "-m", "zonectl", "validate", str(tmp_path / "example.yaml")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr


def test_the_command_table_matches_the_cli() -> None:
    """Each row's command exists, and each option the row names is in its --help (the CLI
    in this process, typer's CliRunner: one interpreter start, not one per row)."""
    rows = re.findall(r"^\| `zonectl (\w+)[^`]*` \| (.*) \|$", README.read_text(), re.M)
    assert {name for name, _ in rows} >= {
        "validate", "plan", "apply", "rotate", "status", "export", "recover", "sandbox", "schema"
    }  # fmt: skip
    if not app.registered_commands:
        register(app)
    for name, rest in rows:
        result = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, f"zonectl {name} --help: {result.output}"
        help_text = result.stdout
        for option in re.findall(r"`(--?[a-z][\w-]*)", rest):
            assert option in help_text, f"zonectl {name} --help does not mention {option}"


def test_the_docs_the_readme_links_exist() -> None:
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README.read_text()):
        assert (ROOT / target).exists(), target


def test_the_policy_reference_example_validates(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "policy.md").read_text()
    complete = [b for b in yaml_blocks(text) if b.startswith("apiVersion")]
    assert complete
    for i, body in enumerate(complete):
        (tmp_path / f"doc{i}.yaml").write_text(body)
    result = child_procs.run(
        [sys.executable, "-m", "zonectl", "validate", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
