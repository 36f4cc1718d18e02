"""The config server's `minNumChunksForSessionsCollection` in a cluster file
(`configServer: {setParameter: ...}`, as a mongod config file carries it): the sandbox's
config.system.sessions has that many chunks rounded up to a power of two, split where the
balancer splits it; a value outside the server's bounds [1, 1000000], or a parameter the
sandbox does not know, is refused naming the file, line and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bson import Binary
from bson.max_key import MaxKey
from bson.min_key import MinKey
from pymongo import MongoClient
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.uri import start

SESSIONS = "config.system.sessions"
CLUSTER = "shards:\n  - {name: s0}\n  - {name: s1}\n  - {name: s2}\n"

if not app.registered_commands:
    register(app)


def _cluster(tmp_path: Path, parameters: str) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER + f"configServer:\n  setParameter:\n    {parameters}\n")
    return path


def _sessions_chunks(path: Path) -> list[dict[str, Any]]:
    """config.system.sessions' chunks by min, through pymongo on a `sandbox:FILE` URI."""
    with start(f"sandbox:{path}?now=2026-11-23T17:01:00Z") as handle:
        client: MongoClient[Any] = MongoClient(handle.uri, serverSelectionTimeoutMS=5000)
        try:
            entry = client.config.collections.find_one({"_id": SESSIONS})
            assert entry is not None and entry["key"] == {"_id": 1}
            return list(client.config.chunks.find({"uuid": entry["uuid"]}).sort("min", 1))
        finally:
            client.close()


def _bound(prefix: int) -> dict[str, Any]:
    return {"_id": {"id": Binary(prefix.to_bytes(4, "big") + bytes(12), 4)}}


@pytest.mark.parametrize(("value", "chunks"), [(1, 1), (4, 4), (5, 8), (100, 128)])
def test_the_sessions_collection_has_the_parameters_chunks_rounded_up_to_a_power_of_two(
    tmp_path: Path, value: int, chunks: int
) -> None:
    found = _sessions_chunks(_cluster(tmp_path, f"minNumChunksForSessionsCollection: {value}"))
    assert len(found) == chunks
    assert found[0]["min"] == {"_id": MinKey()} and found[-1]["max"] == {"_id": MaxKey()}
    # getSplitCandidatesForSessionsCollection: i << (32 - bits) in the first 4 bytes of _id.id.
    bits = (chunks - 1).bit_length()
    assert [c["max"] for c in found[:-1]] == [_bound(i << (32 - bits)) for i in range(1, chunks)]
    assert [c["shard"] for c in found] == [f"s{i % 3}" for i in range(chunks)]


def test_without_the_parameter_the_default_1024_holds(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER)
    assert len(_sessions_chunks(path)) == 1024


@pytest.mark.parametrize(
    ("parameters", "problem"),
    [
        ("minNumChunksForSessionsCollection: 0", "Input should be greater than or equal to 1"),
        (
            "minNumChunksForSessionsCollection: 1000001",
            "Input should be less than or equal to 1000000",
        ),
        ("minNumChunksForSessionsCollection: '8'", "Input should be a valid integer"),
        ("minNumChunks: 8", "Extra inputs are not permitted"),
    ],
)
def test_a_value_the_server_would_refuse_is_refused_naming_file_line_and_field(
    tmp_path: Path, parameters: str, problem: str
) -> None:
    path = _cluster(tmp_path, parameters)
    result = CliRunner().invoke(app, ["status", "--uri", f"sandbox:{path}"])
    assert result.exit_code == 1, result.output
    field = parameters.split(":")[0]
    assert result.stderr.startswith(
        f"zonectl: error: {path}:7:5: field 'configServer.setParameter.{field}': {problem}"
    )
    assert "Traceback" not in result.stderr
