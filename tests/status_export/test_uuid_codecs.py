"""status groups the one chunk cursor of every collection by each chunk's uuid, compared as
BSON bytes: a URI whose uuidRepresentation makes pymongo decode uuids as uuid.UUID (or keep
them as Binary) must find every collection's chunks all the same."""

from __future__ import annotations

from tests.status_export.builders import (
    add_range,
    add_shards,
    fresh_sandbox,
    namespace,
    shard_collection,
    status_json,
)


def test_status_reads_the_same_chunks_whatever_the_uri_decodes_uuids_as() -> None:
    with fresh_sandbox() as (uri, client):
        add_shards(client, {"a": ["hot"], "b": ["cold"], "c": []})
        for i in range(6):
            ns = f"app.c{i}"
            owners = {0: "a", 1: "b", 2: ["a", "b", "c"][i % 3]}
            shard_collection(client, ns, {"k": 1}, [{"k": 10}, {"k": 20}], owners)
            add_range(client, ns, "hot", {"k": 10}, {"k": 20})
        seen = []
        for suffix in ("", "?uuidRepresentation=standard", "?uuidRepresentation=pythonLegacy"):
            doc = status_json(uri + suffix)
            seen.append([namespace(doc, f"app.c{i}") for i in range(6)])
    assert seen[0] == seen[1] == seen[2]
    # every collection's chunks were found: three each, one outside its zone range's shard
    assert [n["chunks"] for n in seen[0]] == [3] * 6
    assert [n["compliance"]["chunksOutsideZone"] for n in seen[0]] == [1] * 6
