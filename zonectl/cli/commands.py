"""The list of commands: each lives in its own module and exposes `command`."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    from zonectl.cli import (
        analyze_cmd,
        apply_cmd,
        doctor_cmd,
        explain_cmd,
        export_cmd,
        plan_cmd,
        recover_cmd,
        rotate_cmd,
        sandbox_cmd,
        schema_cmd,
        status_cmd,
        twin_cmd,
        validate_cmd,
    )
    from zonectl.cli.fleet import command as fleet_command

    app.command("validate")(validate_cmd.command)
    app.command("plan")(plan_cmd.command)
    app.command("apply")(apply_cmd.command)
    app.command("recover")(recover_cmd.command)
    app.command("rotate")(rotate_cmd.command)
    app.command("sandbox")(sandbox_cmd.command)
    app.command("status")(status_cmd.command)
    app.command("export")(export_cmd.command)
    app.command("schema")(schema_cmd.command)
    app.add_typer(fleet_command.app, name="fleet")
    app.command("doctor")(doctor_cmd.command)
    app.command("analyze")(analyze_cmd.command)
    app.command("twin")(twin_cmd.command)
    app.command("explain")(explain_cmd.command)
