"""What planning the balancer settings reads beyond the config documents, only when the
policy asks for a one-shot setting (defragment): balancerCollectionStatus of collections
defragmenting now (phase, progress), and zonectl's own record of the ones it started
(`<database>.once`), kept because the server forgets a finished defragmentation."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.balancer_settings.table import COLLECTION
from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.mongo.connect import Client, Connection

ONCE = "once"  # collection of zonectl's own database


def with_settings_facts(
    conn: Connection, desired: DesiredState, actual: ClusterState
) -> ClusterState:
    once_keys = [r.key for r in COLLECTION if r.once]
    wanted = [
        (ns, key)
        for ns, cp in sorted(desired.collections.items())
        for key in once_keys
        if key in cp.settings and ns in actual.collections
    ]
    if not wanted:
        return actual
    collections = dict(actual.collections)
    for ns in sorted({ns for ns, _ in wanted}):
        live = collections[ns]
        if any(live.settings.get(r.field) for r in COLLECTION if r.once):
            status = _status(conn.client, ns)
            collections[ns] = dataclasses.replace(live, balancer_status=status)
    done = MongoOnce(conn.client, desired.own_database).read_done(wanted, actual)
    return dataclasses.replace(actual, collections=collections, once_done=done)


def _status(client: Client, ns: str) -> Mapping[str, Any] | None:
    try:
        return dict(client.admin.command({"balancerCollectionStatus": ns}))
    except OperationFailure:
        return None  # progress not shown; the plan still knows it runs
    except PyMongoError as exc:
        raise ClusterError(f"balancerCollectionStatus {ns} failed: {redact(str(exc))}") from None


class MongoOnce:
    """zonectl's record of one-shot settings it started, keyed by namespace and setting, with
    the collection's UUID (a collection dropped and re-created is a new one)."""

    def __init__(self, client: Client, database: str) -> None:
        self.coll = client[database][ONCE]

    def read_done(
        self, wanted: list[tuple[str, str]], actual: ClusterState
    ) -> frozenset[tuple[str, str]]:
        ids = [f"{ns}|{key}" for ns, key in wanted]
        try:
            docs = list(self.coll.find({"_id": {"$in": ids}}))
        except PyMongoError as exc:
            message = f"reading zonectl's own records failed: {redact(str(exc))}"
            raise ClusterError(message) from None
        done = set()
        for doc in docs:
            ns, key = str(doc.get("ns")), str(doc.get("key"))
            live = actual.collections.get(ns)
            if live is not None and doc.get("uuid") == live.uuid:
                done.add((ns, key))
        return frozenset(done)

    def write(self, memo: Mapping[str, Any]) -> None:
        try:
            self.coll.replace_one({"_id": memo["_id"]}, dict(memo), upsert=True)
        except PyMongoError as exc:
            raise ClusterError(f"recording {memo['_id']} failed: {redact(str(exc))}") from None
