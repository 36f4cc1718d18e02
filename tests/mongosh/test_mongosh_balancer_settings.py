"""mongosh's auto-merger and balancer-settings helpers against the sandbox (issue 30).

The real mongosh (npm `mongosh`, found as in test_mongosh_helpers.py) runs
sh.startAutoMerger(), stopAutoMerger(), isAutoMergerEnabled(), disableAutoMerger(ns),
enableAutoMerger(ns), sh.balancerCollectionStatus(ns), sh.stopBalancer()/startBalancer()
and a config.settings write the 7.0 validator refuses; the results are read back.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey
from mongosh_kit import find_mongosh, run_eval

from zonectl.sandbox.state import Sandbox

MONGOSH = find_mongosh()
if MONGOSH is None:
    pytest.skip("mongosh is not installed (see mongosh_kit.py)", allow_module_level=True)

PRELUDE = """
const out = (name, value) => print('@@' + name + ' ' + EJSON.stringify(value, {relaxed: false}));
const cfg = db.getSiblingDB('config');
"""


def _run(uri: str, script: str, home: Path) -> dict[str, Any]:
    assert MONGOSH is not None
    return run_eval(MONGOSH, uri, PRELUDE + script, home)


def _sandbox(version: str) -> Sandbox:
    sb = Sandbox(version)
    sb.clock.set(dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC))
    for n in range(2):
        sb.cluster.add_shard(f"shard{n}", f"rs{n}/localhost:{27018 + n}")
    bounds = [{"x": MinKey()}, {"x": 10}, {"x": 20}, {"x": MaxKey()}]
    sb.cluster.create_collection(
        "db.c", {"x": 1}, bounds=bounds, shards=["shard0"] * 3, sizes=[1 << 20] * 3,
        counts=[100] * 3,
    )  # fmt: skip
    return sb


SCRIPT = """
sh.stopAutoMerger(); out('afterStop', sh.isAutoMergerEnabled());
sh.startAutoMerger(); out('afterStart', sh.isAutoMergerEnabled());
sh.disableAutoMerger('db.c');
out('disabled', cfg.collections.findOne({_id: 'db.c'}).enableAutoMerge);
sh.enableAutoMerger('db.c');
out('enabled', cfg.collections.findOne({_id: 'db.c'}).enableAutoMerge === undefined);
sh.stopBalancer(); out('mergerAfterStopBalancer', sh.isAutoMergerEnabled());
sh.startBalancer(); out('mergerAfterStartBalancer', sh.isAutoMergerEnabled());
out('status', sh.balancerCollectionStatus('db.c'));
let code = 0;
try { cfg.settings.updateOne({_id: 'autosplit'}, {$set: {enabled: true}}, {upsert: true}); }
catch (e) { code = e.code; }
out('autosplitCode', code);
out('merge', db.adminCommand({mergeAllChunksOnShard: 'db.c', shard: 'shard0'}).ok);
"""


def test_auto_merger_helpers_and_the_validator_on_7_0(sandbox_server: Any, tmp_path: Path) -> None:
    sb = _sandbox("7.0")
    handle = sandbox_server(sandbox=sb)
    sb.clock.advance(dt.timedelta(minutes=6))  # past the history window
    got = _run(handle.uri, SCRIPT, tmp_path)
    assert got["afterStop"] is False and got["afterStart"] is True
    assert got["disabled"] is False and got["enabled"] is True
    assert got["mergerAfterStopBalancer"] is False  # balancerStop wrote automerge false
    assert got["mergerAfterStartBalancer"] is True
    assert got["status"]["chunkSize"] == 128
    assert got["autosplitCode"] == 121
    assert got["merge"] == 1
    assert len(list(handle.client.config.chunks.find())) == 1  # [MinKey, MaxKey) on shard0


def test_the_same_helpers_change_nothing_the_balancer_reads_on_6_0(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = sandbox_server(sandbox=_sandbox("6.0"))
    script = """
    sh.stopBalancer(); out('automerge', cfg.settings.findOne({_id: 'automerge'}));
    cfg.settings.updateOne({_id: 'autosplit'}, {$set: {enabled: false}}, {upsert: true});
    out('autosplit', cfg.settings.findOne({_id: 'autosplit'}).enabled);
    let code = 0;
    try { db.adminCommand({mergeAllChunksOnShard: 'db.c', shard: 'shard0'}); }
    catch (e) { code = e.code; }
    out('merge', code);
    """
    got = _run(handle.uri, script, tmp_path)
    assert got["automerge"] is None  # 6.0's balancerStop writes only the balancer document
    assert got["autosplit"] is False  # no validator before 7.0
    assert got["merge"] == 59  # CommandNotFound
