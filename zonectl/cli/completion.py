"""Shell completion (typer's, for bash, zsh, fish and PowerShell): what each parameter
completes to, as one table by parameter name, attached to every command that has it.
Completion reads local files only (policies, the inventory), never a cluster."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any

COMPLETE_VAR = "_ZONECTL_COMPLETE"  # also when run as `python -m zonectl`
POLICY_SUFFIXES = (".yaml", ".yml")

Completer = Callable[[Any, Any, str], list[str]]


def policy_paths(ctx: Any, param: Any, incomplete: str) -> list[str]:
    """Directories (ending in `/`) and YAML files that start with what was typed."""
    folder, _, start = incomplete.rpartition("/")
    base = Path(folder + "/" if folder or incomplete.startswith("/") else ".")
    try:
        entries = sorted(base.iterdir(), key=lambda p: p.name)
    except OSError:
        return []
    prefix = f"{folder}/" if folder or incomplete.startswith("/") else ""
    found = []
    for entry in entries:
        if not entry.name.startswith(start) or (entry.name[0] == "." and start[:1] != "."):
            continue
        if entry.is_dir():
            found.append(f"{prefix}{entry.name}/")
        elif entry.suffix in POLICY_SUFFIXES:
            found.append(f"{prefix}{entry.name}")
    return found


def cluster_names(ctx: Any, param: Any, incomplete: str) -> list[str]:
    """The inventory's cluster names: --inventory as typed so far, else $ZONECTL_INVENTORY,
    else ./clusters.yaml. An inventory that does not load completes to nothing."""
    from zonectl.errors import ZonectlError
    from zonectl.inventory.clusters import load_inventory

    given = _params(ctx).get("inventory")
    path = given or os.environ.get("ZONECTL_INVENTORY") or "clusters.yaml"
    try:
        names = load_inventory(path).names()
    except (ZonectlError, OSError, ValueError):
        return []
    return [name for name in names if name.startswith(incomplete)]


def namespaces(ctx: Any, param: Any, incomplete: str) -> list[str]:
    """The namespaces (and namespace patterns) the policy given so far names. A policy
    that does not load completes to nothing."""
    from zonectl.errors import ZonectlError
    from zonectl.policy import load_policy

    paths = [str(p) for p in _params(ctx).get("paths") or ()] or [
        # An option still waiting for its value stops click's parse before the
        # arguments are assigned; they are then among the words left over.
        word
        for word in getattr(ctx, "args", None) or ()
        if not word.startswith("-") and Path(word).exists()
    ]
    if not paths:
        return []
    try:
        desired = load_policy(paths).desired
    except (ZonectlError, OSError, ValueError):
        return []
    names = sorted({*desired.collections, *desired.patterns})
    return [name for name in names if name.startswith(incomplete)]


# Parameter name (the command function's argument) -> what it completes to.
COMPLETIONS: dict[str, Completer] = {
    "paths": policy_paths,
    "namespaces": namespaces,
    "fleet_clusters": cluster_names,
    "inventory": policy_paths,  # an inventory is a YAML file too
}


def attach_completions(command: Any) -> int:
    """Give every parameter named in COMPLETIONS, in every (sub)command of `command` (the
    click command typer builds), its completer; returns how many were attached."""
    attached = 0
    for each in _walk(command):
        for param in each.params:
            completer = COMPLETIONS.get(param.name or "")
            if completer is not None:
                # click's hook for a parameter's own completion (what typer's
                # `autocompletion=` sets); its results replace the type's default.
                param._custom_shell_complete = completer
                attached += 1
    return attached


SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
_OPTIONS = ("--show-completion", "--install-completion")


def explicit_shell(argv: list[str], commands: Collection[str]) -> tuple[str, str] | None:
    """(option, shell) when `argv` asks for completion for a named shell: `--show-completion
    zsh` or `--install-completion=zsh`. typer's options are flags that detect the running
    shell and never read that word, so from bash they gave bash's script. UsageError for
    a word that is neither a shell nor a command; None when no shell is named."""
    from zonectl.errors import UsageError

    for i, word in enumerate(argv):
        option, eq, value = word.partition("=")
        if option not in _OPTIONS:
            continue
        if not eq:
            after = argv[i + 1] if i + 1 < len(argv) else ""
            if not after or after.startswith("-") or after in commands:
                return None  # no shell named: typer detects the running one
            value = after
        if value.lower() not in SHELLS:
            raise UsageError(f"{option} {value}: not a shell; one of {', '.join(SHELLS)}")
        return option, value.lower()
    return None


def shell_help(command: Any) -> None:
    """The two options' help on the root `command` says a shell may be named."""
    shells = ", ".join(SHELLS[:4])
    for param in command.params:
        if param.name == "install_completion":
            param.help = (
                f"Install completion for the current shell, or for the SHELL named after "
                f"it ({shells})."
            )
        elif param.name == "show_completion":
            param.help = (
                f"Show completion for the current shell, or for the SHELL named after it "
                f"({shells}), to copy it or customize the installation."
            )


def run_for_shell(option: str, shell: str, *, prog_name: str) -> None:
    """What typer's option does, for `shell` rather than the detected one."""
    from typer._completion_shared import get_completion_script, install  # typer's own

    if option == "--show-completion":
        sys.stdout.write(
            get_completion_script(prog_name=prog_name, complete_var=COMPLETE_VAR, shell=shell)
            + "\n"
        )
        return
    shell, path = install(shell=shell, prog_name=prog_name, complete_var=COMPLETE_VAR)
    sys.stdout.write(f"{shell} completion installed in {path}\n")
    sys.stdout.write("Completion will take effect once you restart the terminal\n")


def _walk(command: Any) -> Iterator[Any]:
    yield command
    for sub in getattr(command, "commands", {}).values():
        yield from _walk(sub)


def _params(ctx: Any) -> dict[str, Any]:
    params: dict[str, Any] = getattr(ctx, "params", None) or {}
    return params
