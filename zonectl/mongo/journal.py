"""The apply journal in zonectl's own database (`journal`): one header per apply plus one
inserted event per step, so a run killed at any point leaves what `recover` needs."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.mongo.connect import Client


class MongoJournal:
    """Headers `{_id: apply_id, type: "apply", state: "open"|"closed", ...}` and events
    `{apply: apply_id, seq, type: "pause"|"restored"|"step", ...}`. Events are inserts
    only: nothing a crash can leave half-written."""

    def __init__(self, client: Client, database: str) -> None:
        self.coll = client[database]["journal"]
        self._seq: dict[str, int] = {}

    def open(self, doc: Mapping[str, Any]) -> None:
        self._write("opening the journal", lambda: self.coll.insert_one({**doc, "type": "apply"}))

    def event(self, apply_id: str, doc: Mapping[str, Any]) -> None:
        seq = self._seq.get(apply_id, 0) + 1
        self._seq[apply_id] = seq
        record = {**doc, "apply": apply_id, "seq": seq, "at": dt.datetime.now(dt.UTC)}
        self._write("journaling a step", lambda: self.coll.insert_one(record))

    def close(self, apply_id: str, outcome: str) -> None:
        update = {"$set": {"state": "closed", "outcome": outcome, "ended": dt.datetime.now(dt.UTC)}}
        self._write(
            "closing the journal",
            lambda: self.coll.update_one({"_id": apply_id, "type": "apply"}, update),
        )

    def find_open(self) -> list[dict[str, Any]]:
        """Open headers, oldest first, each with its `events` in order."""
        try:
            headers = list(self.coll.find({"type": "apply", "state": "open"}).sort("started", 1))
            for header in headers:
                header["events"] = list(self.coll.find({"apply": header["_id"]}).sort("seq", 1))
        except PyMongoError as exc:
            raise ClusterError(f"reading the journal failed: {redact(str(exc))}") from None
        return [dict(h) for h in headers]

    def _write(self, what: str, fn: Any) -> None:
        try:
            fn()
        except PyMongoError as exc:
            raise ClusterError(f"{what} failed: {redact(str(exc))}") from None
