"""Shell completion as the shells run it: the script `zonectl --show-completion` prints is
sourced in a real bash and a real zsh, whose completion function calls zonectl back over
typer's protocol (`_ZONECTL_COMPLETE`, with COMP_WORDS/COMP_CWORD for bash and
_TYPER_COMPLETE_ARGS for zsh). Commands, policy paths, the policy's namespaces for -n and
the inventory's cluster names for --cluster complete; nothing connects to a cluster."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path
from subprocess import CompletedProcess

import child_procs
import pytest

ROOT = Path(__file__).resolve().parents[2]
INVENTORY = """apiVersion: zonectl/v1
kind: ClusterInventory
clusters:
  - {name: prod-eu, uri: {env: ZONECTL_URI_PROD_EU}, labels: {env: prod}}
  - {name: prod-us, uri: {file: secrets/prod-us.uri}}
  - {name: staging, uri: {value: "sandbox:"}}
"""


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A working directory with policies/ (the demo), a clusters.yaml, a file that is no
    policy, and `zonectl` on PATH as a user has it (this interpreter's zonectl)."""
    (tmp_path / "policies").mkdir()
    shutil.copytree(ROOT / "policies" / "demo", tmp_path / "policies" / "demo")
    (tmp_path / "policies" / "notes.txt").write_text("not a policy\n")
    (tmp_path / "clusters.yaml").write_text(INVENTORY)
    (tmp_path / "fleet").mkdir()
    (tmp_path / "fleet" / "other.yaml").write_text(INVENTORY.replace("prod-", "edge-"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "zonectl"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m zonectl "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZONECTL_", "_TYPER"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(ROOT)
    env["HOME"] = str(tmp_path)
    return tmp_path, env


def bash_complete(home: tuple[Path, dict[str, str]], line: str) -> list[str]:
    """What bash offers for `line` (the cursor at its end) with zonectl's script loaded."""
    cwd, env = home
    words = line.split(" ")
    script = (
        'eval "$(zonectl --show-completion; true)"\n'
        f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        "_zonectl_completion zonectl\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = child_procs.run(
        ["bash", "--norc", "-c", script], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return [w for w in done.stdout.splitlines() if w]


ZSH = shutil.which("zsh")


def zsh_complete(home: tuple[Path, dict[str, str]], line: str) -> list[str]:
    """What zsh offers for `line`: the script is sourced in zsh, with `compdef` and
    `_arguments` (zsh's completion system, which needs a terminal) replaced by functions
    that print the choices they are handed."""
    assert ZSH is not None
    cwd, env = home
    words = line.split(" ")
    script = (
        "compdef() { :; }\n"
        "_files() { print -r -- '<files>'; }\n"
        # each choice is "value":"help" or "value", one a line, zsh-quoted
        "_arguments() { local spec=${1#'*: :(('} e; spec=${spec%'))'};"
        " for e in ${(Q)${(z)spec}}; do print -r -- ${e%%:*}; done; }\n"
        'eval "$(zonectl --show-completion; true)"\n'
        f"words=({' '.join(shlex.quote(w) for w in words)})\n"
        f"CURRENT={len(words)}\n"
        "_zonectl_completion\n"
    )
    done = child_procs.run(
        [ZSH, "-f", "-c", script], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_bash_completes_commands_policy_paths_namespaces_and_clusters(
    home: tuple[Path, dict[str, str]],
) -> None:
    assert bash_complete(home, "zonectl pl") == ["plan"]
    assert bash_complete(home, "zonectl plan pol") == ["policies/"]
    # directories and YAML files only: the note is no policy
    assert bash_complete(home, "zonectl validate policies/") == ["policies/demo/"]
    assert "policies/demo/events.yaml" in bash_complete(home, "zonectl plan policies/demo/")
    for command in ("plan", "apply", "status", "analyze"):
        assert bash_complete(home, f"zonectl {command} policies/demo -n app.") == [
            "app.audit", "app.events", "app.reports", "app.users"
        ]  # fmt: skip
    assert bash_complete(home, "zonectl plan policies/demo --namespace app.u") == ["app.users"]
    assert bash_complete(home, "zonectl rotate policies/ --cluster prod") == ["prod-eu", "prod-us"]
    assert bash_complete(home, "zonectl status --cluster ") == ["prod-eu", "prod-us", "staging"]
    other = "zonectl plan policies/ --inventory fleet/other.yaml --cluster "
    assert bash_complete(home, other) == ["edge-eu", "edge-us", "staging"]


def test_bash_completes_nothing_from_a_policy_or_inventory_that_does_not_load(
    home: tuple[Path, dict[str, str]],
) -> None:
    cwd, _ = home
    (cwd / "broken.yaml").write_text("collections: [\n")
    assert bash_complete(home, "zonectl plan broken.yaml -n app") == []
    assert bash_complete(home, "zonectl plan -n app") == []  # no policy named yet
    assert bash_complete(home, "zonectl plan p --inventory broken.yaml --cluster ") == []
    (cwd / "clusters.yaml").unlink()
    assert bash_complete(home, "zonectl plan policies/ --cluster ") == []


@pytest.mark.skipif(ZSH is None, reason="zsh not installed (apt-get install zsh; .ci/run does)")
def test_zsh_completes_commands_policy_paths_namespaces_and_clusters(
    home: tuple[Path, dict[str, str]],
) -> None:
    assert zsh_complete(home, "zonectl pl") == ["plan"]
    assert zsh_complete(home, "zonectl plan pol") == ["policies/"]
    assert zsh_complete(home, "zonectl status policies/demo -n app.") == [
        "app.audit", "app.events", "app.reports", "app.users"
    ]  # fmt: skip
    assert zsh_complete(home, "zonectl apply policies/demo --cluster prod") == [
        "prod-eu", "prod-us"
    ]  # fmt: skip
    # nothing to offer: zsh falls back to its own file completion
    assert zsh_complete(home, "zonectl plan policies/demo -n nosuch") == ["<files>"]


def in_bash(home: tuple[Path, dict[str, str]], command: str) -> CompletedProcess[str]:
    """`command` run by a bash (the running shell typer would detect)."""
    cwd, env = home
    return child_procs.run(
        ["bash", "--norc", "-c", command], cwd=cwd, env=env, capture_output=True, text=True
    )


def test_the_shell_named_wins_over_the_running_one(home: tuple[Path, dict[str, str]]) -> None:
    zsh = in_bash(home, "zonectl --show-completion zsh")
    assert zsh.returncode == 0, zsh.stderr
    assert zsh.stdout.startswith("#compdef zonectl")
    assert "COMPREPLY" not in zsh.stdout  # bash's script is not what was asked for
    fish = in_bash(home, "zonectl --show-completion=fish")
    assert fish.stdout.startswith("complete --command zonectl"), fish.stderr
    detected = in_bash(home, "zonectl --show-completion")  # none named: the running shell
    assert "COMPREPLY" in detected.stdout and "#compdef" not in detected.stdout


def test_install_completion_installs_for_the_shell_named(
    home: tuple[Path, dict[str, str]],
) -> None:
    cwd, _ = home
    done = in_bash(home, "zonectl --install-completion zsh")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("zsh completion installed in")
    assert "compinit" in (cwd / ".zshrc").read_text()
    assert not (cwd / ".bashrc").exists()


def test_a_word_that_is_no_shell_is_a_usage_error(home: tuple[Path, dict[str, str]]) -> None:
    done = in_bash(home, "zonectl --show-completion tcsh")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip() == (
        "zonectl: error: --show-completion tcsh: not a shell; one of bash, zsh, fish, "
        "powershell, pwsh"
    )
