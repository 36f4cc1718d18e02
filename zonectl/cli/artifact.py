"""Where a command's artifact goes: stdout, or with `-o FILE` that file, holding exactly
what `--format` names (never another format), written whole or not at all."""

from __future__ import annotations

import os
import sys
import tempfile
from contextlib import suppress
from pathlib import Path
from typing import Any

import typer

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


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so a reader sees the old file or the new one, never half:
    a temporary file in the same directory (same filesystem), fsync, then os.replace.
    The temporary name ends in .tmp (a textfile collector reading *.prom skips it)."""
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
