"""The one runner of the pages' shell blocks (README.md and every page of docs/): parses the
fenced blocks, runs each command of the `sh` and `console` blocks in order, in a scratch
directory, as a newcomer would type it, and checks each exit code and shown output.

The markup a page uses (documented in docs/README.md):
- a trailing `# exit N` comment gives a command's exit code (0 otherwise);
- `<!-- not run: REASON -->` on the line before a block skips it; REASON is required;
- `<!-- file: NAME -->` before a block writes the block to NAME before any command runs;
- `<!-- output of: COMMAND -->` before a non-shell block runs COMMAND in the page's order
  and checks the block as a console block's output (the marker may span lines);
- in a `console` block, `$ ` starts a command and the other lines are its output: each
  must appear in what the command printed (text before a `...` as a line's start; a line
  of `...` alone stands for lines left out).

Every Python process a page starts (zonectl, python) runs on a pinned calendar, PINNED
(pinned_clock/sitecustomize.py), so no page follows the host's date. A command whose output
the page shows runs a second time, on a copy of the directory as it was before it ran, at
OTHER_DAY (alongside the first run): what the page shows must hold on both days, or the
page pinned too little.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

# pinned_clock/sitecustomize.py uses it in each process; a missing one fails here, loudly,
# rather than as a warning in every command and pages on the host's calendar.
import child_procs
import time_machine  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
SHELL = ("sh", "console")
OPEN = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[ \t]*$")
CLOSE = re.compile(r"^[ \t]*```[ \t]*$")
MARKER = re.compile(r"^[ \t]*<!--\s*(?P<kind>not run|file|output of)\s*:(?P<value>.*?)-->[ \t]*$")
EXIT = re.compile(r"#\s*exit (\d+)")
TIMEOUT_S = 300
CLOCK = Path(__file__).resolve().parent / "pinned_clock"  # its sitecustomize pins the date
PINNED = "2026-11-23T17:01:00+00:00"  # the day every page runs on (a Monday, 17:01 UTC)
# The second day a shown output must hold on: another year, month, weekday and hour (inside
# the demo's 23:00-06:00 balancer window, where PINNED is outside it).
OTHER_DAY = "2027-02-28T00:37:00+00:00"


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    line: int  # of the opening fence, 1-based
    marker: tuple[str, str] | None  # ("not run", reason), ("file", name), ("output of", cmd)

    @property
    def runs(self) -> bool:
        return self.lang in SHELL and (self.marker is None or self.marker[0] != "not run")

    @property
    def checked(self) -> bool:
        """Run, or the output of a command the kit runs (an `output of` marker)."""
        return self.runs or (self.marker is not None and self.marker[0] == "output of")


@dataclass(frozen=True)
class Command:
    line: str
    output: tuple[str, ...]  # what a console block shows it printing
    block: Block

    @property
    def exit_code(self) -> int:
        found = EXIT.search(self.line)
        return int(found.group(1)) if found else 0


def blocks(text: str) -> list[Block]:
    """Every fenced block, indented ones (inside list items) too, with its marker."""
    lines = text.splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opened = OPEN.match(lines[i])
        if not opened:
            i += 1
            continue
        indent = len(opened["indent"])
        end = next((j for j in range(i + 1, len(lines)) if CLOSE.match(lines[j])), len(lines))
        body = "".join(line[indent:] + "\n" for line in lines[i + 1 : end])
        marker = MARKER.match(_marker_before(lines, i))
        found.append(
            Block(
                opened["lang"],
                body,
                i + 1,
                (marker["kind"], marker["value"].strip()) if marker else None,
            )
        )
        i = end + 1
    return found


def _marker_before(lines: list[str], i: int) -> str:
    """The last non-blank line before line `i`; an HTML comment ending there that starts
    on an earlier line, joined into one line."""
    j = next((j for j in range(i - 1, -1, -1) if lines[j].strip()), -1)
    if j < 0:
        return ""
    if lines[j].rstrip().endswith("-->") and "<!--" not in lines[j]:
        start = next((k for k in range(j - 1, -1, -1) if "<!--" in lines[k]), None)
        if start is not None:
            return " ".join(line.strip() for line in lines[start : j + 1])
    return lines[j]


def commands(block: Block) -> list[Command]:
    """The commands of a shell block: `\\` continues a line; in `sh`, blank lines and
    comment lines are not commands; in `console`, only `$ ` lines are, the rest output.
    A block with an `output of` marker: its command, showing the block's lines."""
    if block.marker is not None and block.marker[0] == "output of":
        shown = (line.rstrip() for line in block.body.splitlines())
        return [Command(block.marker[1], tuple(line for line in shown if line), block)]
    out: list[Command] = []
    pending: list[str] = []
    shown: list[str] = []
    console = block.lang == "console"
    for raw in block.body.splitlines():
        if pending:
            pending.append(raw.strip())
        elif console and raw.startswith("$ "):
            pending = [raw[2:].strip()]
        elif console:
            if out and raw.strip():
                shown.append(raw.rstrip())
            continue
        elif raw.strip() and not raw.lstrip().startswith("#"):
            pending = [raw.strip()]
        else:
            continue
        if pending[-1].endswith("\\"):
            pending[-1] = pending[-1][:-1].rstrip()
            continue
        if out and console:
            out[-1] = Command(out[-1].line, tuple(shown), block)
        shown = []
        out.append(Command(" ".join(pending), (), block))
        pending = []
    if out and console:
        out[-1] = Command(out[-1].line, tuple(shown), block)
    return out


def scratch(tmp_path: Path, policies: Path) -> tuple[Path, dict[str, str]]:
    """A directory whose `policies` is `policies`, and a PATH whose `zonectl` is this
    interpreter's zonectl (the package under test, installed or not) and whose `python`
    is this interpreter; every Python process started with it runs on PINNED's calendar."""
    (tmp_path / "policies").symlink_to(policies)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, run_as in (("zonectl", " -m zonectl"), ("python", ""), ("python3", "")):
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)}{run_as} "$@"\n')
        shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZONECTL_")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{CLOCK}"
    env["DOCS_KIT_NOW"] = PINNED
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "200"
    return tmp_path, env


def run(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return child_procs.run(
        ["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
    )


def run_blocks(
    page: str, found: list[Block], cwd: Path, env: dict[str, str]
) -> list[tuple[str, str]]:
    """Write the page's files, then run its commands in order; each must exit with its
    code and print what a console block shows, at PINNED and at OTHER_DAY (`other_day`).
    Returns (command, stdout) in order. `export NAME=VALUE` lines set the environment of
    the commands after them."""
    for block in found:
        if block.marker and block.marker[0] == "file":
            (cwd / block.marker[1]).parent.mkdir(parents=True, exist_ok=True)
            (cwd / block.marker[1]).write_text(block.body)
    ran = []
    for block in found:
        if not block.checked:
            continue
        for command in commands(block):
            where = f"{page}:{block.line}: {command.line}"
            if re.fullmatch(r"export \w+=\S+(\s*#.*)?", command.line):
                name, _, value = command.line.removeprefix("export ").partition("=")
                env[name] = shlex.split(value, comments=True)[0]
                continue
            with before(cwd, command) as copy, ThreadPoolExecutor(1) as pool:
                # The other day's run, in its own copy, alongside this one: the two never
                # share a file, and most of a command's time is waiting, not computing.
                later = None
                if copy is not None:
                    later = pool.submit(run, command.line, copy, {**env, "DOCS_KIT_NOW": OTHER_DAY})
                try:
                    result = run(command.line, cwd, env)
                finally:
                    other = later.result() if later is not None else None
                assert result.returncode == command.exit_code, (
                    f"{where}\nexit {result.returncode}, the page says {command.exit_code}\n"
                    f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"
                )
                missing = unshown(command.output, result.stdout + result.stderr)
                assert not missing, f"{where}\nshown but not printed: {missing}\n{result.stdout}"
                if other is not None:
                    other_day(where, command, other)
            ran.append((command.line, result.stdout))
    return ran


@contextlib.contextmanager
def before(cwd: Path, command: Command) -> Iterator[Path | None]:
    """For a command whose output the page shows, a copy of `cwd` as it is before the
    command runs (symlinks kept), removed afterwards; None for the others."""
    if not command.output:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="docs-other-day-") as parent:
        copy = Path(parent) / cwd.name
        shutil.copytree(cwd, copy, symlinks=True)
        yield copy


def other_day(where: str, command: Command, result: subprocess.CompletedProcess[str]) -> None:
    """`command` run again, in a copy of the directory, at OTHER_DAY: the same exit code
    and everything the page shows, or the page shows something that follows the calendar."""
    missing = unshown(command.output, result.stdout + result.stderr)
    changed = (
        f"exit {result.returncode}, the page says {command.exit_code}"
        if result.returncode != command.exit_code
        else f"shown but not printed: {missing}"
    )
    assert result.returncode == command.exit_code and not missing, (
        f"{where}\nwhat the page shows depends on the date: it holds on {PINNED}, not on "
        f"{OTHER_DAY} ({changed}). Pin the block's clock (`sandbox:?now=...` in its URI, "
        f"`--at ...`) or show only what every day prints.\n{result.stdout[-3000:]}"
    )


def unshown(shown: tuple[str, ...], printed: str) -> list[str]:
    """The lines a console block shows that the command did not print (whitespace runs
    compare equal; text before a `...` must start a printed line)."""
    lines = [" ".join(line.split()) for line in printed.splitlines()]
    missing = []
    for want in shown:
        head = " ".join(want.split("...", 1)[0].split())
        if not head:
            continue
        exact = "..." not in want
        if not any(line == head if exact else line.startswith(head) for line in lines):
            missing.append(want)
    return missing
