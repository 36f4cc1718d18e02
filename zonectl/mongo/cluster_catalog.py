"""The collections of many databases in one aggregation: `$listClusterCatalog` on admin
(8.0.10+ and 8.1+), in place of one listCollections per database, with each tracked
collection's shards; None where the server lacks the stage or refuses it, so callers fall
back to listCollections without troubling the user."""

from __future__ import annotations

from typing import Any

from pymongo.errors import OperationFailure

from zonectl.mongo.connect import Connection
from zonectl.mongo.state import WHOLE

STAGE = "$listClusterCatalog"
# Unrecognized pipeline stage (a server before the stage, or one that misreports its
# version); Unauthorized: on admin it needs the cluster action listClusterCatalog
# (clusterMonitor has it), where listCollections needs only a read role per database; and
# QueryFeatureNotAllowed, in case a binary gates the stage by FCV (guessed, not seen).
REFUSED = frozenset({40324, 13, 224})

Entry = dict[str, Any]


def has_cluster_catalog(version: str) -> bool:
    """The manual: "New in version 8.0.10" (8.0) and in 8.1 (the rapid releases)."""
    parts = [int(p) if p.isdigit() else 0 for p in version.split(".")[:3]]
    have = tuple([*parts, 0, 0, 0][:3])
    return have >= (8, 1, 0) or (have[:2] == (8, 0) and have >= (8, 0, 10))


def read_cluster_catalog(
    conn: Connection, databases: list[str]
) -> list[tuple[str, list[Entry]]] | None:
    """Per database (in the order given), its collections as listCollections names them
    (`name`, `type`, `options`), plus `shards` (a tracked collection's chunk owners, else
    the primary); None when the stage is absent or refused (REFUSED). The `$match` on `db`
    right after the stage is absorbed by it, so the server lists only these databases
    (document_source_internal_list_collections.cpp, `optimizeAt`). The stage's output is
    documented as unstable: only `ns`, `db`, `type`, `options` and `shards` are relied on,
    and a document missing `ns` or `db` is skipped."""
    if not databases or not has_cluster_catalog(conn.version):
        return None
    pipeline: list[dict[str, Any]] = [
        {STAGE: {"shards": True}},
        {"$match": {"db": {"$in": list(databases)}}},
    ]
    try:
        docs = list(conn.client.admin.aggregate(pipeline, batchSize=WHOLE))
    except OperationFailure as exc:
        if exc.code in REFUSED:
            return None
        raise
    by_db: dict[str, list[Entry]] = {db: [] for db in databases}
    for doc in docs:
        db, ns = doc.get("db"), doc.get("ns")
        if not isinstance(db, str) or not isinstance(ns, str) or db not in by_db:
            continue
        entry: Entry = {"name": ns[len(db) + 1 :], "type": doc.get("type", "collection")}
        entry["options"] = dict(doc.get("options") or {})
        if isinstance(doc.get("shards"), list):
            entry["shards"] = [str(s) for s in doc["shards"]]
        by_db[db].append(entry)
    for entries in by_db.values():
        entries.sort(key=lambda e: str(e["name"]))
    return list(by_db.items())
