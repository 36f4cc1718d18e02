"""Space as WiredTiger keeps it, seen through dbStats and collStats over TCP: a donor's files
keep their size when chunks leave (the freed blocks become the collection's free storage), a
recipient grows by the compressed bytes it receives less the free space it reuses, a saved
sandbox keeps all of it, and a dropped collection gives its files back."""

from __future__ import annotations

from pathlib import Path

import pymongo
from volumes_util import CHUNK, DOCS, GIB, HOST_A, HOST_B, NOW, STORED, cluster_file, move, used

from zonectl.sandbox import uri as sandbox_uri


def test_a_migration_leaves_the_donor_full_and_the_recipient_reuses_its_free_space(
    tmp_path: Path,
) -> None:
    with sandbox_uri.start(f"sandbox:{cluster_file(tmp_path)}?now={NOW}") as sb:
        client: pymongo.MongoClient[dict] = pymongo.MongoClient(sb.uri)
        # collStats answers for a collection that holds documents: one, in a chunk on b.
        client.app.events.insert_one({"_id": 1, "k": 65000})
        start = used(client)
        move(client, 0, "b")  # a chunk leaves a: a keeps its files, b grows by its stored bytes
        once = used(client)
        shards = client.app.command("collStats", "events")["shards"]
        move(client, 0, "a")  # back to a, into a's free space; b keeps what it allocated
        back = used(client)
        move(client, 64000, "a")  # one of b's own chunks: a has no free space left
        third = used(client)
        free = client.app.command("dbStats", freeStorage=1)["raw"]
    assert once[HOST_A] == start[HOST_A] == (14 * GIB, 20 * GIB)
    assert once[HOST_B][0] == start[HOST_B][0] + STORED
    assert shards["a"]["freeStorageSize"] == CHUNK // 2 and shards["a"]["size"] == 63 * CHUNK
    assert shards["a"]["storageSize"] == 64 * CHUNK // 2  # the file keeps its size
    assert back == once
    assert third[HOST_A][0] == back[HOST_A][0] + STORED and third[HOST_B] == back[HOST_B]
    # b holds 3 chunks in files sized for the 5 it once held: two chunks' worth free there.
    assert free[HOST_B]["totalFreeStorageSize"] == 2 * STORED
    assert free[HOST_B]["indexFreeStorageSize"] == 2 * DOCS * 64


def test_saved_state_keeps_the_volumes_and_the_free_space(tmp_path: Path) -> None:
    state = tmp_path / "s.state"
    path = cluster_file(tmp_path)
    with sandbox_uri.start(f"sandbox:{path}?now={NOW}&state={state}") as sb:
        client: pymongo.MongoClient[dict] = pymongo.MongoClient(sb.uri)
        move(client, 0, "b")
        want = client.app.command("dbStats", freeStorage=1)["raw"]
    # The cluster file is another one now: the saved state's disks win.
    path.write_text(path.read_text().replace("size: 20GiB", "size: 30GiB"))
    with sandbox_uri.start(f"sandbox:{path}?now={NOW}&state={state}") as sb:
        client = pymongo.MongoClient(sb.uri)
        assert client.app.command("dbStats", freeStorage=1)["raw"] == want
        move(client, 64000, "a")  # into the free space the saved state remembers
        assert used(client)[HOST_A] == (14 * GIB, 20 * GIB)


def test_a_dropped_collection_gives_its_files_back(tmp_path: Path) -> None:
    with sandbox_uri.start(f"sandbox:{cluster_file(tmp_path)}?now={NOW}") as sb:
        client: pymongo.MongoClient[dict] = pymongo.MongoClient(sb.uri)
        move(client, 0, "b")
        client.app.events.drop()
        after = used(client, db="admin")  # b holds nothing of app any more: it answers zeros
    assert after[HOST_A][0] == 14 * GIB - 64 * STORED
    assert after[HOST_B][0] == 2 * GIB


def test_move_collection_rewrites_the_collection_and_the_donor_drops_its_file(
    tmp_path: Path,
) -> None:
    text = cluster_file(tmp_path).read_text().replace('version: "7.0"', 'version: "8.0"')
    extra = "unsharded:\n  - {ns: app.notes, bytes: 409600000, docs: 400000}\n"
    path = cluster_file(tmp_path, extra, text)
    stored = 409600000 // 2 + 400000 * 64
    with sandbox_uri.start(f"sandbox:{path}?now={NOW}") as sb:
        client: pymongo.MongoClient[dict] = pymongo.MongoClient(sb.uri)
        before = used(client, db="admin")
        client.admin.command({"moveCollection": "app.notes", "toShard": "b"})
        after = used(client, db="admin")
    assert before[HOST_A][0] == 14 * GIB + stored  # a is app's primary: the notes live there
    assert after[HOST_A][0] == 14 * GIB
    assert after[HOST_B][0] == before[HOST_B][0] + stored
