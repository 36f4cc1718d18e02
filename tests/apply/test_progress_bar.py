"""The `apply --migrate` progress bar on a terminal of 80 columns: one line each refresh,
every figure whole, and one unit family (binary: MiB, GiB, MiB/s). Run as an operator
runs it: the CLI in a subprocess whose stderr is a pseudo-terminal, COLUMNS=80."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import child_procs

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")


def on_a_terminal(columns: int, *args: str) -> tuple[int, list[str]]:
    """Exit code and the lines the terminal was sent (each refresh of the bar is one)."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "24", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    env["PYTHONPATH"] = str(ROOT)
    proc = child_procs.popen(
        [sys.executable, "-m", "zonectl", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env=env,
        cwd=ROOT,
    )
    os.close(slave)
    received = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the child closed its end
                    break
                if not data:
                    break
                received.append(data)
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    text = ANSI.sub("", b"".join(received).decode("utf-8", "replace"))
    return code, [line for line in re.split(r"[\r\n]", text) if line.strip()]


def test_the_bar_fits_80_columns_in_binary_units() -> None:
    code, lines = on_a_terminal(
        80,
        "apply",
        "policies/demo",
        "--uri",
        "sandbox:?now=2026-03-04T10:00:00Z",
        "--migrate",
        "--yes",
        "-n",
        "app.users",
    )
    assert code == 0, lines
    assert not any("MB/s" in line for line in lines)  # MiB beside MiB/s, never MB/s
    bars = [line for line in lines if re.search(r"\d+/6 chunks", line)]
    assert bars, lines
    for bar in bars:  # whole on one line: no figure cut or wrapped to the next
        assert len(bar) <= 80, bar
        assert re.search(r" \d+\.\d/90\.0 MiB +\d/6 chunks ", bar), bar
        assert re.search(r" ETA (\d:\d\d:\d\d|-:--:--)$", bar), bar
        assert bar.startswith("app.users "), bar  # "migrating" gives way below 100 columns
    assert re.search(r" \d+\.\d MiB/s ", bars[-1]), bars[-1]
    assert "6/6 chunks" in bars[-1]
