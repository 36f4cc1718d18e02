"""Writing a text file so a reader sees the old file or the new one, never half of one:
the one way zonectl writes its artifacts (plan, status, metrics, twins)."""

from __future__ import annotations

import os
import tempfile
from contextlib import suppress
from pathlib import Path


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
