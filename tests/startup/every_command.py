"""Run as a script: each argument line (JSON list of lists) through zonectl's CLI with every
command registered, in this one process; prints {line: [exit code, stdout, stderr]} as
JSON. test_one_command compares a fresh `zonectl <line>` with only its command registered
against these, one interpreter for all the references."""

from __future__ import annotations

import contextlib
import io
import json
import sys

import typer

from zonectl.cli import app as cli
from zonectl.cli.completion import attach_completions, shell_help


def main() -> None:
    lines: list[list[str]] = json.loads(sys.argv[1])
    cli._register(["--help"])  # not a command's name first: every command
    command = typer.main.get_command(cli.app)
    attach_completions(command)
    shell_help(command)
    answers = {}
    for line in lines:
        out, err = io.StringIO(), io.StringIO()
        code: object = 0
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                command.main(line, prog_name="zonectl")
            except SystemExit as exc:
                code = exc.code
        answers[" ".join(line)] = [code, out.getvalue(), err.getvalue()]
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main()
