"""The README cannot rot: every command it shows is run here, in order, in a scratch
directory, as a newcomer would type it (exit codes from trailing `# exit N` comments,
0 otherwise); its policy example validates; its command table matches the real CLI."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
EXIT = re.compile(r"#\s*exit (\d+)")


def blocks(lang: str) -> list[str]:
    return [body for kind, body in FENCE.findall(README.read_text()) if kind == lang]


def shell_lines() -> list[str]:
    return [line.strip() for body in blocks("sh") for line in body.splitlines() if line.strip()]


def expected_exit(line: str) -> int:
    found = EXIT.search(line)
    return int(found.group(1)) if found else 0


@pytest.fixture
def scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A directory with the repository's policies, and a PATH whose `zonectl` is this
    interpreter's zonectl (the package under test, installed or not)."""
    (tmp_path / "policies").symlink_to(ROOT / "policies")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "zonectl"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m zonectl "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZONECTL_")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)
    env["NO_COLOR"] = "1"
    return tmp_path, env


def test_the_setup_commands_work_as_written(scratch: tuple[Path, dict[str, str]]) -> None:
    """`pip install` is CI's job (.ci/run runs it); what follows `&&` is run here."""
    cwd, env = scratch
    setup = [line for line in shell_lines() if line.startswith("pip install")]
    assert setup == [
        "pip install . && zonectl plan policies/demo --uri sandbox:",
        "pip install -e '.[test]' && pytest -n 2",
    ]
    result = run(setup[0].split("&&", 1)[1], cwd, env)
    assert result.returncode == 0, result.stderr
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    test_deps = " ".join(extras["optional-dependencies"]["test"])
    assert "pytest>" in test_deps and "pytest-xdist" in test_deps  # `-n 2` needs xdist


def test_every_tour_command_runs_in_order_with_its_exit_code(
    scratch: tuple[Path, dict[str, str]],
) -> None:
    cwd, env = scratch
    tour = [line for line in shell_lines() if not line.startswith("pip install")]
    assert tour[0].startswith("export ZONECTL_URI=")
    ran = []
    for line in tour:
        if line.startswith("export "):
            name, _, value = line.removeprefix("export ").partition("=")
            env[name] = shlex.split(value)[0]
            continue
        result = run(line, cwd, env)
        assert result.returncode == expected_exit(line), (
            f"{line}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
        ran.append((line, result.stdout))
    outputs = dict(ran)
    # A newcomer following only the README reaches a converged cluster and sees it.
    assert "all scanned namespaces comply with their zones" in outputs["zonectl status"]
    assert outputs["zonectl rotate policies/demo --yes"] == ""  # nothing due after apply
    moved = outputs["zonectl status -n app.events"]
    assert 'ISODate("2030-01-02T00:00:00.000Z")' in moved
    assert "not compliant: app.events" in moved
    assert (cwd / "tour.json").exists() and (cwd / "mine.yaml").exists()


def test_the_policy_example_validates(tmp_path: Path) -> None:
    [example] = blocks("yaml")
    (tmp_path / "example.yaml").write_text(example)
    result = subprocess.run(
        [sys.executable, "-m", "zonectl", "validate", str(tmp_path / "example.yaml")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr


def test_the_command_table_matches_the_cli() -> None:
    """Each row's command exists, and each option the row names is in its --help."""
    rows = re.findall(r"^\| `zonectl (\w+)[^`]*` \| (.*) \|$", README.read_text(), re.M)
    assert {name for name, _ in rows} >= {
        "validate", "plan", "apply", "rotate", "status", "export", "recover", "sandbox", "schema"
    }  # fmt: skip
    for name, rest in rows:
        help_text = subprocess.run(
            [sys.executable, "-m", "zonectl", name, "--help"],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        ).stdout
        for option in re.findall(r"`(--?[a-z][\w-]*)", rest):
            assert option in help_text, f"zonectl {name} --help does not mention {option}"


def test_the_docs_the_readme_links_exist() -> None:
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README.read_text()):
        assert (ROOT / target).exists(), target


def run(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_policy_reference_example_validates(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "policy.md").read_text()
    complete = [b for k, b in FENCE.findall(text) if k == "yaml" and b.startswith("apiVersion")]
    assert complete
    for i, body in enumerate(complete):
        (tmp_path / f"doc{i}.yaml").write_text(body)
    result = subprocess.run(
        [sys.executable, "-m", "zonectl", "validate", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
