"""Where a command's artifact goes: stdout, or with `-o FILE` that file, holding exactly
what `--format` names (never another format), written whole or not at all."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from zonectl.atomic import write_atomically
from zonectl.errors import ZonectlError

OUT_HELP = (
    "Write the output (what --format names) to FILE instead of stdout, atomically: a "
    "reader never sees half of it. In a fleet run FILE is a directory, one file per cluster."
)

# The file name a fleet run gives each cluster's artifact, by output format.
SUFFIXES = {
    "text": ".txt",
    "json": ".json",
    "markdown": ".md",
    "html": ".html",
    "github": ".txt",
    "openmetrics": ".txt",  # not .prom: node-exporter's textfile collector reads those
    "yaml": ".yaml",
}


def out_option(help_text: str = OUT_HELP) -> Any:
    """For `Annotated[Path | None, out_option()] = None`."""
    return typer.Option("-o", "--out", metavar="FILE", help=help_text, show_default=False)


def emit(text: str, out: Path | None) -> None:
    """The artifact to stdout, or whole to `out`."""
    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        write_atomically(out, text)
    except OSError as exc:
        raise ZonectlError(f"cannot write {out}: {exc.strerror or exc}") from None
