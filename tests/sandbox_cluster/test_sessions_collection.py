"""config.system.sessions, as every real cluster has it (docs/sandbox-fidelity.md, "The
sessions collection"): sharded on {_id: 1} in 1024 chunks split where the balancer splits
it, maxChunkSizeBytes 200000 from 6.0, where configureCollectionBalancing's chunkSize 0
also puts it back; left alone by the balancer; and, as on a real cluster, left out of
status, export and analyze unless named."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from bson import Binary, Int64
from pymongo import MongoClient
from sandbox_at import served_at
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.uri import SandboxHandle

NOW = "2026-03-02T10:00:00Z"
SESSIONS = "config.system.sessions"

if not app.registered_commands:
    register(app)


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[tuple[SandboxHandle, MongoClient[Any]]]:
    with served_at(request.param, NOW) as both:
        yield both


def _uuid_bound(prefix: int) -> dict[str, Any]:
    return {"_id": {"id": Binary(prefix.to_bytes(4, "big") + bytes(12), 4)}}


@pytest.mark.parametrize("served", ["5.0", "6.0", "7.0", "8.0"], indirect=True)
def test_every_cluster_has_the_sessions_collection_sharded_in_1024_chunks(
    served: tuple[SandboxHandle, MongoClient[Any]],
) -> None:
    handle, client = served
    config = client.config
    entry = config.collections.find_one({"_id": SESSIONS})
    assert entry is not None and entry["key"] == {"_id": 1}
    chunks = list(config.chunks.find({"uuid": entry["uuid"]}).sort("min", 1))
    assert len(chunks) == 1024
    # getSplitCandidatesForSessionsCollection: the first 10 bits of _id.id count up.
    assert [c["max"] for c in chunks[:2]] == [_uuid_bound(0x00400000), _uuid_bound(0x00800000)]
    assert chunks[-1]["min"] == _uuid_bound(0xFFC00000)
    if handle.sandbox.version.major_minor == "5.0":
        assert "maxChunkSizeBytes" not in entry
    else:
        assert entry["maxChunkSizeBytes"] == Int64(200000)
    assert config.databases.find_one({"_id": "config"}) is None  # never listed
    # The balancer leaves it as it is: counts even, no data, nothing to merge.
    before = [c["shard"] for c in chunks]
    for _ in range(3):
        handle.sandbox.balancer.run_round()
        handle.sandbox.balancer.complete_migrations()
    after = [c["shard"] for c in config.chunks.find({"uuid": entry["uuid"]}).sort("min", 1)]
    assert after == before


@pytest.mark.parametrize("served", ["7.0", "8.0"], indirect=True)
def test_chunk_size_zero_puts_the_sessions_default_back(
    served: tuple[SandboxHandle, MongoClient[Any]],
) -> None:
    handle, client = served
    admin, config = client.admin, client.config
    admin.command("configureCollectionBalancing", SESSIONS, chunkSize=1)
    assert config.collections.find_one({"_id": SESSIONS})["maxChunkSizeBytes"] == 1024 * 1024
    admin.command("configureCollectionBalancing", SESSIONS, chunkSize=0)
    assert config.collections.find_one({"_id": SESSIONS})["maxChunkSizeBytes"] == 200000
    # Any other collection: chunkSize 0 removes the field (back to the global chunk size).
    admin.command("configureCollectionBalancing", "app.events", chunkSize=64)
    admin.command("configureCollectionBalancing", "app.events", chunkSize=0)
    assert "maxChunkSizeBytes" not in config.collections.find_one({"_id": "app.events"})
    status = admin.command("balancerCollectionStatus", SESSIONS)
    # 200000 bytes in MB: a long (0) through 7.0, rounded up to 1/100 MB in 8.x (the
    # manual's balancerCollectionStatus example shows chunkSize: 0.2).
    want = 0.2 if handle.sandbox.version.major_minor == "8.0" else 0
    assert status["chunkSize"] == want and status["balancerCompliant"] is True


def test_status_export_and_analyze_leave_it_out_unless_it_is_named() -> None:
    uri = f"sandbox:?now={NOW}"
    runner = CliRunner()
    status = runner.invoke(app, ["status", "--uri", uri])
    assert status.exit_code == 0, status.output
    assert SESSIONS not in status.stdout
    named = runner.invoke(app, ["status", "--uri", uri, "-n", SESSIONS])
    assert named.exit_code == 0, named.output
    assert f"{SESSIONS}  key {{ _id: 1 }}  balancing on  1,024 chunks" in named.stdout
    export = runner.invoke(app, ["export", "--uri", uri])
    assert export.exit_code == 0, export.output
    assert f"# Not exported (MongoDB's own): {SESSIONS}." in export.stdout
    assert f"{SESSIONS}:" not in export.stdout
    analyze = runner.invoke(app, ["analyze", "--uri", uri, "-f", "json"])
    assert analyze.exit_code == 0, analyze.output
    assert SESSIONS not in analyze.stdout
