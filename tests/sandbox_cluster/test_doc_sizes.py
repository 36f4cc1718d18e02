"""Documents a client writes to a sharded collection count in the chunk that owns their
key (sandbox/catalog/doc_sizes.py): dataSize and a migration's clonedBytes see them, as a
real shard's do, and deletes take them off again."""

from __future__ import annotations

from typing import Any

import bson
from bson.max_key import MaxKey
from bson.min_key import MinKey


def test_inserted_documents_count_in_their_chunk_and_deletes_take_them_off(
    sandbox_server: Any, server_version: str
) -> None:
    sb = sandbox_server(server_version)
    admin, coll = sb.client.admin, sb.client.db.c
    for i in range(2):
        admin.command("addShard", f"rs{i}/host{i}:27018", name=f"s{i}")
    admin.command("enableSharding", "db")
    admin.command("shardCollection", "db.c", key={"k": 1})
    admin.command("split", "db.c", middle={"k": 100})
    docs = [{"_id": i, "k": 100 + i, "pad": "x" * 1000} for i in range(50)]
    coll.insert_many(docs)
    coll.insert_one({"_id": "nokey", "pad": "y"})  # no shard key: counts at null, below 100
    each = len(bson.encode(docs[0]))
    upper = admin.command("dataSize", "db.c", keyPattern={"k": 1}, min={"k": 100},
                          max={"k": MaxKey()})  # fmt: skip
    assert (upper["size"], upper["numObjects"]) == (50 * each, 50)
    lower = admin.command("dataSize", "db.c", keyPattern={"k": 1}, min={"k": MinKey()},
                          max={"k": 100})  # fmt: skip
    assert lower["numObjects"] == 1
    coll.delete_many({"k": {"$gte": 140}})
    upper = admin.command("dataSize", "db.c", keyPattern={"k": 1}, min={"k": 100},
                          max={"k": MaxKey()})  # fmt: skip
    assert (upper["size"], upper["numObjects"]) == (40 * each, 40)
    admin.command("moveChunk", "db.c", find={"k": 100}, to="s1")
    commit = sb.client.config.changelog.find_one({"what": "moveChunk.commit"})
    assert commit["details"]["counts"]["cloned"] == 40
    assert commit["details"]["counts"]["clonedBytes"] == 40 * each
