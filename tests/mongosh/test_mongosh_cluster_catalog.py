"""The real mongosh runs `$listClusterCatalog` on admin against the 8.3 sandbox (issue 31),
and gets the unknown-stage error from the 8.0 profile (8.0.4), as from a real 8.0.4."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bson import MaxKey, MinKey
from mongosh_kit import find_mongosh, run_eval

from zonectl.sandbox.state import Sandbox

MONGOSH = find_mongosh()
if MONGOSH is None:
    pytest.skip("mongosh is not installed (see mongosh_kit.py)", allow_module_level=True)

PRELUDE = "const out = (name, value) => print('@@' + name + ' ' + EJSON.stringify(value));\n"


def _run(uri: str, script: str, home: Path) -> dict[str, Any]:
    assert MONGOSH is not None
    return run_eval(MONGOSH, uri, PRELUDE + script, home)


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
