"""The real mongosh runs `$listClusterCatalog` on admin against the 8.3 sandbox (issue 31),
and gets the unknown-stage error from the 8.0 profile (8.0.4), as from a real 8.0.4."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bson import MaxKey, MinKey, json_util

from zonectl.sandbox.state import Sandbox


def _find_mongosh() -> str | None:
    """As test_mongosh_helpers.py finds it: ZONECTL_MONGOSH, PATH, or .ci/run's npm cache."""
    explicit = os.environ.get("ZONECTL_MONGOSH")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    prefix = Path(os.environ.get("HOME", "~")).expanduser() / ".cache" / "zonectl-mongosh"
    candidate = prefix / "node_modules" / ".bin" / "mongosh"
    return shutil.which("mongosh") or (str(candidate) if candidate.is_file() else None)


MONGOSH = _find_mongosh()
if MONGOSH is None:
    pytest.skip("mongosh is not installed (see test_mongosh_helpers.py)", allow_module_level=True)

PRELUDE = "const out = (name, value) => print('@@' + name + ' ' + EJSON.stringify(value));\n"


def _run(uri: str, script: str, home: Path) -> dict[str, Any]:
    assert MONGOSH is not None
    conf = home / "mongosh.conf"
    conf.write_text("mongosh:\n  forceDisableTelemetry: true\n")
    env = {**os.environ, "HOME": str(home), "MONGOSH_GLOBAL_CONFIG_FILE_FOR_TESTING": str(conf),
           "CI": "1", "NO_COLOR": "1"}  # fmt: skip
    proc = subprocess.run(
        [MONGOSH, uri, "--quiet", "--norc", "--eval", PRELUDE + script],
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


def _sandbox(version: str) -> Sandbox:
    sb = Sandbox(version)
    for n in range(2):
        sb.cluster.add_shard(f"shard{n}", f"rs{n}/localhost:{27018 + n}")
    bounds = [{"x": MinKey()}, {"x": 10}, {"x": MaxKey()}]
    sb.cluster.create_collection("db.c", {"x": 1}, bounds=bounds, shards=["shard0", "shard1"])
    return sb


SCRIPT = """
const all = db.getSiblingDB('admin').aggregate([{$listClusterCatalog: {}}]).toArray();
out('nss', all.map(d => d.ns).sort());
out('sharded', all.filter(d => d.sharded).map(d => [d.ns, d.shardKey]));
try {
  db.getSiblingDB('admin').aggregate([{$listClusterCatalog: {shards: 1}}]).toArray();
  out('bad', null);
} catch (e) { out('bad', e.code); }
"""

OLD = """
try { db.getSiblingDB('admin').aggregate([{$listClusterCatalog: {}}]).toArray(); out('code', 0); }
catch (e) { out('code', e.code); }
"""


def test_mongosh_lists_the_cluster_catalog_on_8_3(sandbox_server: Any, tmp_path: Path) -> None:
    handle = sandbox_server(sandbox=_sandbox("8.3"))
    found = _run(handle.uri, SCRIPT, tmp_path)
    assert "db.c" in found["nss"] and "config.chunks" in found["nss"]
    assert found["sharded"] == [["db.c", {"x": 1}]]
    assert found["bad"] == 14  # TypeMismatch: `shards` must be a boolean


def test_mongosh_gets_an_unknown_stage_from_8_0_4(sandbox_server: Any, tmp_path: Path) -> None:
    handle = sandbox_server(sandbox=_sandbox("8.0"))
    assert _run(handle.uri, OLD, tmp_path)["code"] == 40324
