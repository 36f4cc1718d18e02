"""shardCollection pre-splitting (§1.8), chunk documents, seeding errors, persistence, CLI."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import bson
import child_procs
import pytest
from bson import MinKey
from pymongo import MongoClient
from pymongo.errors import OperationFailure
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.codec import CODEC
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.seed import persist
from zonectl.sandbox.seed.schema import SeedError, load_cluster_file
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)
EXAMPLES = Path(__file__).resolve().parents[2] / "policies" / "examples"


def test_shard_collection_presplits_empty_collection_at_zone_ranges(cluster: Any) -> None:
    admin, config = cluster.client.admin, cluster.client.config
    for i, zone in enumerate("abc"):
        admin.command("addShardToZone", f"s{i}", zone=zone)
    for (lo, hi), zone in zip([(0, 10), (10, 20), (30, 40)], "abc", strict=True):
        admin.command("updateZoneKeyRange", "test.z", min={"x": lo}, max={"x": hi}, zone=zone)
    admin.command("shardCollection", "test.z", key={"x": 1})
    uuid = config.collections.find_one({"_id": "test.z"})["uuid"]
    chunks = list(config.chunks.find({"uuid": uuid}).sort("min", 1))
    assert [c["min"]["x"] for c in chunks] == [MinKey(), 0, 10, 20, 30, 40]
    assert [c["shard"] for c in chunks][1:3] == ["s0", "s1"] and chunks[4]["shard"] == "s2"
    assert "ns" not in chunks[0] and chunks[0]["lastmod"].time == 1


def test_shard_collection_fails_50973_when_a_range_zone_has_no_shard(cluster: Any) -> None:
    cluster.client.config.tags.insert_one(
        {"ns": "test.orphan", "min": {"x": 0}, "max": {"x": 1}, "tag": "nobody"}
    )
    with pytest.raises(OperationFailure) as info:
        cluster.client.admin.command("shardCollection", "test.orphan", key={"x": 1})
    assert info.value.code == 50973


def test_shard_collection_rejects_a_key_that_does_not_match_existing_ranges(cluster: Any) -> None:
    admin = cluster.client.admin
    admin.command("addShardToZone", "s0", zone="a")
    admin.command("updateZoneKeyRange", "test.k", min={"x": 0}, max={"x": 1}, zone="a")
    with pytest.raises(OperationFailure) as info:
        admin.command("shardCollection", "test.k", key={"x": 1, "y": 1})
    assert info.value.code == 72


def test_remove_shard_refuses_to_strand_a_zone_then_drains(cluster: Any) -> None:
    admin = cluster.client.admin
    admin.command("addShardToZone", "s2", zone="a")
    admin.command("updateZoneKeyRange", "ghost.c", min={"k": 0}, max={"k": 1}, zone="a")
    with pytest.raises(OperationFailure) as info:
        admin.command("removeShard", "s2")
    assert info.value.code == 163
    assert admin.command("removeShard", "s1")["state"] == "started"
    assert cluster.client.config.shards.find_one({"_id": "s1"})["draining"] is True
    assert admin.command("removeShard", "s1")["state"] == "completed"  # s1 holds no chunks


def test_malformed_cluster_file_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("shards:\n  - name: a\n    zonez: [x]\ncollections:\n  - ns: a.b\n    key: 5\n")
    with pytest.raises(SeedError) as info:
        load_cluster_file(path)
    text = info.value.text  # one problem per line: the message, then its details
    assert f"{path}:3:5: field 'shards[0].zonez'" in text
    assert f"{path}:6:5: field 'collections[0].key'" in text


def test_a_policy_given_as_the_cluster_file_says_so_one_problem_per_line() -> None:
    """A new user's slip (`--uri sandbox:policies/examples/firehose.yaml`): each problem on
    a line of its own (not joined by a literal backslash-n), and a hint that names it."""
    result = CliRunner().invoke(app, ["status", "--uri", f"sandbox:{EXAMPLES / 'firehose.yaml'}"])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith("zonectl: error: ") and "\\n" not in result.stderr
    assert any(line.startswith("  ") and "field 'kind'" in line for line in lines[1:])
    assert "hint: this is a zonectl policy, not a sandbox cluster file" in result.stderr


def test_demo_cluster_seeds_the_collections_the_example_policies_name() -> None:
    sandbox = Sandbox("7.0")
    seed.seed(sandbox, seed.load(None))
    cluster = sandbox.cluster
    assert {"app.events", "app.users", "app.audit", "app.reports", "app.sessions"} <= set(
        cluster.sharded_namespaces()
    )
    assert cluster.key_pattern("app.events") == {"ts": 1, "_id": 1}
    assert len(cluster.chunks("app.events") or []) == 2000
    assert cluster.shards_in_zone("hot") == ["shard-fast-0"]


def test_state_round_trips_through_a_file(tmp_path: Path) -> None:
    sandbox = Sandbox("6.0")
    seed.seed(sandbox, seed.load(None))
    store = sandbox.cluster.chunks("app.events")
    assert store is not None
    store.move(0, "shard-std-3", sandbox.cluster.now_ts())
    path = tmp_path / "state.bin"
    persist.save(sandbox, path)
    assert persist.read_version(path) == "6.0"
    again = Sandbox("6.0")
    persist.load(again, path)
    restored = again.cluster.chunks("app.events")
    assert restored is not None and restored.raw_slice() == store.raw_slice()
    assert restored.sizes() == store.sizes() and restored.version == store.version
    # As a client reads them: the same BSON (a date read back is time-zone aware, as one a
    # client inserted over the wire is; the seed's are naive).
    assert [
        bson.encode(d, codec_options=CODEC) for d in again.catalog.get("config.tags") or []
    ] == [bson.encode(d, codec_options=CODEC) for d in sandbox.catalog.get("config.tags") or []]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_zonectl_sandbox_serves_until_sigint_and_saves_state(tmp_path: Path) -> None:
    port, state = _free_port(), tmp_path / "s.state"
    proc = child_procs.popen(
        [sys.executable, "-m", "zonectl", "sandbox", "--port", str(port), "--state", str(state)],
        stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert f"mongodb://127.0.0.1:{port}/" in line
        client: MongoClient[dict[str, Any]] = MongoClient(port=port, serverSelectionTimeoutMS=5000)
        assert client.admin.command("listShards")["shards"][0]["_id"] == "shard-fast-0"
        client.admin.command("addShardToZone", "shard-std-3", zone="saved")
        client.close()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    reloaded = Sandbox(persist.read_version(state) or "7.0")
    persist.load(reloaded, state)
    assert reloaded.cluster.shard_zones("shard-std-3") == ["saved"]


def test_zonectl_sandbox_reports_a_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        out = child_procs.run(
            [sys.executable, "-m", "zonectl", "sandbox", "--port", str(port)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert out.returncode == 1
    assert f"port {port} is in use" in out.stderr


def test_sandbox_uri_starts_an_in_process_server(tmp_path: Path) -> None:
    from zonectl.sandbox.uri import start

    with start(f"sandbox:?version=5.0&state={tmp_path / 'u.state'}") as handle:
        client: MongoClient[dict[str, Any]] = MongoClient(handle.uri)
        assert client.admin.command("buildInfo")["version"].startswith("5.0")
        assert client.config.chunks.count_documents({}) > 2000
        client.close()
    assert persist.read_version(tmp_path / "u.state") == "5.0"
