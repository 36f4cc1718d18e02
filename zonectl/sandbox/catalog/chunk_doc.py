"""A chunk as `config.chunks` holds it: the document's form per server version, its encoding
in ChunkType::toConfigBSON's field order, its history window, and the decoded `Chunk`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import bson
from bson import Binary, ObjectId, Timestamp

# Old history entries are dropped once older than the snapshot window, keeping at least
# one (minSnapshotHistoryWindowInSeconds, default 300 s; _commitChunkMigration).
HISTORY_WINDOW_SECONDS = 300


@dataclass(frozen=True)
class Chunk:
    """A decoded snapshot of one chunk (what `config.chunks` serves, plus size/count)."""

    index: int
    id: Any
    min: dict[str, Any]
    max: dict[str, Any]
    shard: str
    lastmod: Timestamp
    jumbo: bool
    history: list[dict[str, Any]]
    size: int
    count: int
    on_current_shard_since: Timestamp | None = None
    document: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class DocForm:
    """How this server version writes a chunk document (reference §2.3)."""

    by_uuid: bool = True  # 5.0+: `uuid`; 4.4: `ns`, string `_id`, `lastmodEpoch`
    on_current_shard_since: bool = True  # 7.0+ (SERVER-71615)


@dataclass(frozen=True)
class ChunkEncoder:
    """Encodes the chunk documents of one collection (its namespace, UUID and epoch)."""

    ns: str
    uuid: Binary
    epoch: ObjectId
    form: DocForm

    def encode(
        self,
        _id: Any,
        lo: Mapping[str, Any],
        hi: Mapping[str, Any],
        shard: str,
        lastmod: Timestamp,
        jumbo: bool,
        history: list[dict[str, Any]],
    ) -> bytes:
        # Field order of ChunkType::toConfigBSON: _id, uuid|ns, min, max, shard, lastmod,
        # (lastmodEpoch in 4.4), jumbo only when true, onCurrentShardSince (7.0+), history.
        doc: dict[str, Any] = {"_id": _id}
        if self.form.by_uuid:
            doc["uuid"] = self.uuid
        else:
            doc["ns"] = self.ns
        doc["min"] = lo
        doc["max"] = hi
        doc["shard"] = shard
        doc["lastmod"] = lastmod
        if not self.form.by_uuid:
            doc["lastmodEpoch"] = self.epoch
        if jumbo:
            doc["jumbo"] = True
        if self.form.on_current_shard_since and history:
            doc["onCurrentShardSince"] = history[0]["validAfter"]
        doc["history"] = history
        return bson.encode(doc)


def prune_history(history: list[dict[str, Any]], now: Timestamp) -> list[dict[str, Any]]:
    """Pop the oldest entries while more than one is left and it is outside the window."""
    while len(history) > 1 and history[-1]["validAfter"].time + HISTORY_WINDOW_SECONDS < now.time:
        history.pop()
    return history


def ts_order(ts: Timestamp) -> tuple[int, int]:
    return (ts.time, ts.inc)
