"""Dropping a sharded collection or its database through mongos removes the sharding
metadata with it: config.collections entry, chunks, zone ranges, config.databases entry
(reference §1.7; mongo:src/mongo/db/s/drop_database_coordinator.cpp)."""

from __future__ import annotations

from typing import Any

from bson.min_key import MinKey


def shard_with_range(client: Any, ns: str) -> None:
    client.admin.command({"addShard": "rs0/h0:27018", "name": "s0"})
    client.admin.command({"enableSharding": ns.split(".")[0]})
    client.admin.command({"shardCollection": ns, "key": {"k": 1}})
    client.admin.command({"addShardToZone": "s0", "zone": "z"})
    client.admin.command(
        {"updateZoneKeyRange": ns, "min": {"k": MinKey()}, "max": {"k": 0}, "zone": "z"}
    )


def metadata(client: Any, ns: str) -> tuple[int, int, int]:
    config = client.config
    return (
        config.collections.count_documents({"_id": ns}),
        config.tags.count_documents({"ns": ns}),
        config.chunks.count_documents({}),
    )


def test_drop_of_an_empty_sharded_collection_removes_its_metadata(
    sandbox_server: Any, server_version: str
) -> None:
    sb = sandbox_server(server_version)
    shard_with_range(sb.client, "d.c")
    assert metadata(sb.client, "d.c")[:2] == (1, 1)
    sb.client.d.drop_collection("c")
    assert metadata(sb.client, "d.c") == (0, 0, 0)


def test_drop_database_removes_its_sharded_collections_and_database_entry(
    sandbox_server: Any, server_version: str
) -> None:
    sb = sandbox_server(server_version)
    shard_with_range(sb.client, "d.c")
    reply = sb.client.d.command("dropDatabase")
    assert reply["dropped"] == "d"
    assert metadata(sb.client, "d.c") == (0, 0, 0)
    assert sb.client.config.databases.count_documents({"_id": "d"}) == 0
