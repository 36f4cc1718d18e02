"""Build sandbox clusters the way an operator would: real admin commands over pymongo
(addShard, shardCollection, split, moveChunk, addShardToZone, updateZoneKeyRange, noBalance
updates), and run the zonectl CLI in-process."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pymongo
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.launch import serve
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

Client = pymongo.MongoClient[dict[str, Any]]


def zonectl(*args: str, env: Mapping[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env=dict(env or {}), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def status_json(uri: str, *args: str) -> dict[str, Any]:
    code, out, err = zonectl("status", "--uri", uri, "--format", "json", *args)
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def namespace(doc: Mapping[str, Any], ns: str) -> dict[str, Any]:
    found: dict[str, Any] = next(n for n in doc["namespaces"] if n["namespace"] == ns)
    return found


def add_shards(client: Client, zones: Mapping[str, Sequence[str]]) -> None:
    for i, (name, shard_zones) in enumerate(zones.items()):
        client.admin.command({"addShard": f"rs{i}/h{i}.example:27018", "name": name})
        for zone in shard_zones:
            client.admin.command({"addShardToZone": name, "zone": zone})


def shard_collection(
    client: Client,
    ns: str,
    key: Mapping[str, Any],
    splits: Sequence[Mapping[str, Any]] = (),
    owners: Mapping[int, str] | None = None,
) -> None:
    """Shard `ns`, split at `splits` (in order), then move chunk i to owners[i]; chunk i
    is found by its min: MinKey for 0, splits[i-1] after."""
    db = ns.split(".", 1)[0]
    client.admin.command({"enableSharding": db})
    client.admin.command({"shardCollection": ns, "key": dict(key)})
    for point in splits:
        client.admin.command({"split": ns, "middle": dict(point)})
    for index, shard in (owners or {}).items():
        chunk = _chunk_at(client, ns, splits, index)
        if chunk["shard"] != shard:
            client.admin.command(
                {"moveChunk": ns, "bounds": [chunk["min"], chunk["max"]], "to": shard}
            )


def _chunk_at(
    client: Client, ns: str, splits: Sequence[Mapping[str, Any]], index: int
) -> dict[str, Any]:
    coll = client.config.collections.find_one({"_id": ns})
    assert coll is not None
    chunks = list(client.config.chunks.find({"uuid": coll["uuid"]}).sort("min", 1))
    if not chunks:  # 4.4-style documents
        chunks = list(client.config.chunks.find({"ns": ns}).sort("min", 1))
    return chunks[index]


def add_range(
    client: Client, ns: str, zone: str, lo: Mapping[str, Any], hi: Mapping[str, Any]
) -> None:
    client.admin.command({"updateZoneKeyRange": ns, "min": dict(lo), "max": dict(hi), "zone": zone})


def set_balancing(client: Client, ns: str, enabled: bool) -> None:
    client.config.collections.update_one({"_id": ns}, {"$set": {"noBalance": not enabled}})


@contextlib.contextmanager
def fresh_sandbox(version: str = "7.0") -> Iterator[tuple[str, Client]]:
    """An empty sandbox served over TCP and a client, for tests that make many clusters
    (hypothesis examples cannot share a function-scoped fixture)."""
    server = serve(Sandbox(version))
    client: Client = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        yield server.uri, client
    finally:
        client.close()
        server.close()
