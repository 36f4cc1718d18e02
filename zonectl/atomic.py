"""Writing a file so a reader sees the old file or the new one, never half of one:
the one way zonectl writes its artifacts (plan, status, metrics, twins, sandbox state)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so a reader sees the old file or the new one, never half:
    a temporary file in the same directory (same filesystem), fsync, then os.replace.
    The temporary name ends in .tmp (a textfile collector reading *.prom skips it)."""
    with replacing(path) as handle:
        handle.write(text.encode("utf-8"))


@contextmanager
def replacing(path: Path, *, mode: int = 0o644) -> Iterator[BinaryIO]:
    """A binary handle on a temporary file beside `path` that replaces `path` (fsynced,
    then os.replace, with permissions `mode`) when the block ends without an exception.
    On any exception, the temporary file is removed and `path` keeps what it held."""
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
