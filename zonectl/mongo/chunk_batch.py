"""Many small reads of config.chunks in one round trip: each count or find is one `$unionWith`
sub-pipeline (4.4+) of a single aggregate, so a plan over 1,000 namespaces sends as many
aggregates as one over 20. Every sub-pipeline starts with its own `$match`, which the server
plans on the config.chunks indexes ({uuid, min}, {uuid, shard, min}) as it plans a find:
the cost stays that of the targeted queries it replaces (document_source_union_with.cpp
builds each sub-pipeline through the query planner).

Readers ask as before (`count`, `find`); `replay(fn)` runs a reader with answers withheld
to learn what it asks, sends it all at once, and repeats while answers lead to new
questions (a bounded number of rounds), then runs it for real from the answers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import bson
from bson.min_key import MinKey
from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.mongo.connect import Connection
from zonectl.mongo.state import WHOLE

T = TypeVar("T")
# Sub-pipelines per nested group and groups per aggregate: a pipeline holds at most 1,000
# stages, a $unionWith's sub-pipeline counted on its own (jstests/sharding/query/
# pipeline_length_limit.js), so two levels carry up to 400 x 400 reads in one command.
GROUP = 400
MAX_ROUNDS = 4  # dependent rounds of replay before reads are sent one by one
TAG = "_zonectlRead"


class ChunkBatch:
    """Answers to counts and finds on config.chunks, sent together (see module doc)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.recording = False
        self._answers: dict[bytes, Any] = {}
        self._pending: dict[bytes, list[dict[str, Any]]] = {}
        self.aggregates = 0

    def count(self, query: Mapping[str, Any]) -> int:
        """Chunks matching `query` (the server counts from the index; nothing fetched)."""
        stages: list[dict[str, Any]] = [{"$match": dict(query)}, {"$count": "n"}]
        found = self._ask(stages)
        return int(found[0]["n"]) if found else 0

    def find(
        self,
        query: Mapping[str, Any],
        fields: Mapping[str, Any],
        *,
        sort: Mapping[str, int] | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        stages: list[dict[str, Any]] = [{"$match": dict(query)}]
        if sort:
            stages.append({"$sort": dict(sort)})
        if limit:
            stages.append({"$limit": limit})
        stages.append({"$project": {**dict(fields), "_id": 0}})
        return [dict(d) for d in self._ask(stages)]

    def replay(self, reader: Callable[[], T]) -> T:
        """`reader()` answered from as few aggregates as its dependent reads allow. Inside
        another replay's rehearsal it only rehearses (the outer one sends)."""
        if self.recording:
            return reader()
        for _ in range(MAX_ROUNDS):
            self.recording = True
            try:
                reader()
            finally:
                self.recording = False
            if not self._pending:
                break
            self.run()
        return reader()

    def run(self) -> None:
        """Send every pending read in one aggregate."""
        pending, self._pending = list(self._pending.items()), {}
        if not pending:
            return
        branches = [[*stages, {"$set": {TAG: i}}] for i, (_, stages) in enumerate(pending)]
        groups = [_chained(branches[i : i + GROUP]) for i in range(0, len(branches), GROUP)]
        pipeline = _chained(groups)
        results: list[list[dict[str, Any]]] = [[] for _ in pending]
        try:
            # One reply batch (up to 16 MiB) where it fits, so no getMore follows.
            docs = self.conn.client.config.chunks.aggregate(pipeline, batchSize=WHOLE)
            self.aggregates += 1
            for doc in docs:
                results[int(doc.pop(TAG))].append(doc)
        except PyMongoError as exc:
            raise ClusterError(
                f"{self.conn.uri}: reading config.chunks failed: {redact(str(exc))}"
            ) from None
        for (key, _), found in zip(pending, results, strict=True):
            self._answers[key] = found

    def _ask(self, stages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # The client's codec options: a URI with uuidRepresentation decodes uuids as UUID
        key = bson.encode({"s": stages}, codec_options=self.conn.client.codec_options)
        if key in self._answers:
            return list(self._answers[key])
        self._pending[key] = stages
        if self.recording:
            return []
        self.run()  # not foreseen: one aggregate of its own
        return list(self._answers[key])


def _chained(pipelines: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The first pipeline's stages, then each other one as a $unionWith on config.chunks."""
    head, *rest = pipelines
    return [*head, *({"$unionWith": {"coll": "chunks", "pipeline": p}} for p in rest)]


def straddling(
    batch: ChunkBatch,
    base: Mapping[str, Any],
    lo: Mapping[str, Any],
    fields: Mapping[str, Any],
    *,
    inclusive: bool,
) -> list[dict[str, Any]]:
    """The one chunk with min < lo that may cross into [lo, ...): chunks tile the key
    space, so on a real server the reverse {min} index scan stops at the first document.
    None below an all-MinKey bound (nothing starts before it)."""
    if all(isinstance(v, MinKey) for v in lo.values()):
        return []
    query = {**base, "min": {"$lt": dict(lo)}, "max": {"$gte" if inclusive else "$gt": dict(lo)}}
    return batch.find(query, fields, sort={"min": -1}, limit=1)
