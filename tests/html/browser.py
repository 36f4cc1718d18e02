"""Headless Chromium for the page tests: found through $ZONECTL_CHROMIUM (.ci/run sets it)
or on PATH; each run gets a fresh profile and no network (the page needs none)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import child_procs

FLAGS = [
    "--headless",
    "--no-sandbox",  # CI containers run as root, where Chromium's sandbox cannot start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]
TIMEOUT_S = 120


def find_chromium() -> tuple[str | None, str]:
    """The binary, or None and why not (the skip reason)."""
    given = os.environ.get("ZONECTL_CHROMIUM")
    if given:
        if os.access(given, os.X_OK):
            return given, ""
        return None, f"ZONECTL_CHROMIUM={given} is not an executable"
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found, ""
    return None, (
        "Chromium not found: install Debian's `chromium` package (apt-get install chromium; "
        ".ci/run does, within 10 min) or set ZONECTL_CHROMIUM to its path"
    )


def run(binary: str, url: str, *extra: str) -> str:
    """Chromium's stdout for `url` with `extra` flags (e.g. --dump-dom)."""
    with tempfile.TemporaryDirectory(prefix="zonectl-chromium-") as profile:
        done = child_procs.run(
            [binary, *FLAGS, f"--user-data-dir={profile}", *extra, url],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def screenshot(binary: str, page: Path, out: Path, width: int, height: int) -> bytes:
    run(binary, page.as_uri(), f"--screenshot={out}", f"--window-size={width},{height}")
    return out.read_bytes()
