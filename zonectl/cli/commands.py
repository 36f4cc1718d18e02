"""The list of commands: each lives in its own module and exposes `command`."""

from __future__ import annotations

import importlib

import typer

# Each command's name and module under zonectl.cli, in the order `--help` lists them; a
# module is imported only when its command is registered.
COMMANDS: dict[str, str] = {
    "validate": "validate_cmd",
    "plan": "plan_cmd",
    "apply": "apply_cmd",
    "recover": "recover_cmd",
    "rotate": "rotate_cmd",
    "sandbox": "sandbox_cmd",
    "status": "status_cmd",
    "export": "export_cmd",
    "schema": "schema_cmd",
    "fleet": "fleet.command",  # a group of its own (`fleet plan`, `fleet status`, ...)
    "doctor": "doctor_cmd",
    "analyze": "analyze_cmd",
    "twin": "twin_cmd",
    "explain": "explain_cmd",
}


def register(app: typer.Typer, only: str | None = None) -> None:
    """Every command, or only the one named `only` (a run of one command, whose line
    names it: the others' modules are not imported)."""
    for name, module in COMMANDS.items():
        if only is not None and name != only:
            continue
        loaded = importlib.import_module(f"zonectl.cli.{module}")
        if name == "fleet":
            app.add_typer(loaded.app, name=name)
        else:
            app.command(name)(loaded.command)
