"""Running the real mongosh against a sandbox: where it is (ZONECTL_MONGOSH, PATH, or .ci/run's
npm cache) and one `--eval` whose `out(name, value)` lines come back as EJSON values."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import child_procs
from bson import json_util


def find_mongosh() -> str | None:
    """ZONECTL_MONGOSH, else mongosh on PATH, else the one .ci/run installs into its npm cache."""
    explicit = os.environ.get("ZONECTL_MONGOSH")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    prefix = Path(os.environ.get("HOME", "~")).expanduser() / ".cache" / "zonectl-mongosh"
    candidate = prefix / "node_modules" / ".bin" / "mongosh"
    return shutil.which("mongosh") or (str(candidate) if candidate.is_file() else None)


def run_eval(mongosh: str, uri: str, script: str, home: Path) -> dict[str, Any]:
    """`script` run by mongosh (telemetry off, no rc file); every `@@NAME EJSON` line it
    printed, by name. A non-zero exit fails the test with mongosh's output."""
    conf = home / "mongosh.conf"
    conf.write_text("mongosh:\n  forceDisableTelemetry: true\n")
    env = {**os.environ, "HOME": str(home), "MONGOSH_GLOBAL_CONFIG_FILE_FOR_TESTING": str(conf),
           "CI": "1", "NO_COLOR": "1"}  # fmt: skip
    proc = child_procs.run(
        [mongosh, uri, "--quiet", "--norc", "--eval", script],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, f"mongosh failed:\n{proc.stdout}\n{proc.stderr}"
    found: dict[str, Any] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("@@"):
            name, _, payload = line[2:].partition(" ")
            found[name] = json_util.loads(payload)
    return found
