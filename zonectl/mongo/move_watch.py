"""After a move's connection reset: is its migration still running on the donor ($currentOp),
and which shard owns the chunk now (config.chunks)? Read-only, short reads that a link which
drops long requests still lets through."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.keys import sort_key
from zonectl.mongo.connect import Client

UNAUTHORIZED = 13


class MongoMoveWatch:
    def __init__(self, client: Client) -> None:
        self.client = client

    def read_running(self, ns: str, lo: Mapping[str, Any], to: str) -> bool | None:
        """True while the donor still runs the migration of the chunk starting at `lo` to
        `to`. The config server sends the donor `_shardsvrMoveRange` (6.0+; IDL alias
        `moveChunk`, the 5.0 name) carrying toShard/min/max (mongo:src/mongo/s/request_types/
        move_range_request.idl, MoveRangeRequestBase); the migration itself runs on its own
        client, so it goes on when the client that asked for it is gone
        (mongo:src/mongo/db/s/shardsvr_move_range_command.cpp). Not config.migrations: 4.4-6.x
        only, and a tool should not depend on it (reference §2.6). None without the
        `inprog` privilege ($currentOp of every user's operations)."""
        pipeline: list[dict[str, Any]] = [
            {"$currentOp": {"allUsers": True, "idleConnections": False}},
            {"$match": {"$or": [{"command._shardsvrMoveRange": ns}, {"command.moveChunk": ns}]}},
            {"$project": {"_id": 0, "command": 1}},
        ]
        try:
            ops = list(self.client.admin.aggregate(pipeline))
        except OperationFailure as exc:
            if exc.code == UNAUTHORIZED:
                return None
            raise ClusterError(f"reading $currentOp failed: {redact(str(exc))}") from None
        except PyMongoError as exc:
            raise ClusterError(f"reading $currentOp failed: {redact(str(exc))}") from None
        key = sort_key(dict(lo))
        for op in ops:
            command = op.get("command") or {}
            if command.get("toShard") == to and sort_key(command.get("min")) == key:
                return True
        return False

    def read_owner(self, ns: str, lo: Mapping[str, Any]) -> str | None:
        """The shard that owns the key `lo` of `ns` now: the chunk starting there, else (it
        was merged or split since) the chunk whose range holds it. None if `ns` is gone."""
        try:
            coll = self.client.config.collections.find_one({"_id": ns})
            if coll is None:
                return None
            where: dict[str, Any] = {"uuid": coll["uuid"]} if "uuid" in coll else {"ns": ns}
            doc = self.client.config.chunks.find_one({**where, "min": dict(lo)}, {"shard": 1})
            if doc is not None:
                return str(doc["shard"])
            fields = {"_id": 0, "min": 1, "max": 1, "shard": 1}
            chunks = list(self.client.config.chunks.find(where, fields))
        except PyMongoError as exc:
            raise ClusterError(f"reading config.chunks failed: {redact(str(exc))}") from None
        key = sort_key(dict(lo))
        for c in chunks:
            if sort_key(c["min"]) <= key < sort_key(c["max"]):
                return str(c["shard"])
        return None
