"""Many small reads of config.chunks in one round trip: each count or find is one `$unionWith`
sub-pipeline (4.4+) of a single aggregate, so a plan over 1,000 namespaces sends as many
aggregates as one over 20. Every sub-pipeline starts with its own `$match`, which the server
plans on the config.chunks indexes ({uuid, min}, {uuid, shard, min}) as it plans a find:
the cost stays that of the targeted queries it replaces (document_source_union_with.cpp
builds each sub-pipeline through the query planner).

Readers ask as before (`count`, `find`); `replay(fn)` runs a reader with answers withheld
to learn what it asks, sends it all at once, and repeats while answers lead to new
questions (a bounded number of rounds). A rehearsal in which every answer was real (none
withheld, no reader stood in for one: `stand_in`) is the run itself: its result is kept
and its deferred effects (`when_real`) done; else the reader runs once more for real.
`prefetch` names namespaces to read whole before the first rehearsal, so a reader that
knows its namespaces is run once.

A namespace of at most SMALL chunks is read whole, once, and every later count or find on
it is answered in memory (zonectl.model.chunk_match) instead of by a sub-pipeline of its
own; a bigger one is read as above, its chunks never all fetched. The namespaces a run
reads whole cost two reads whatever their number (zonectl.mongo.whole_reads): one
sub-pipeline counts all their chunks by namespace (`$in` and `$group`), then one find
fetches the chunks of those with at most SMALL. A rehearsal withholds the answers about a
namespace not read yet, so a big one costs one more aggregate the first time it is met
(its reads follow its whole read); a small one none: the commands stay as many at 20 or at
10,000 namespaces.

A reader that asks many questions of one namespace takes its table once (`table`) and asks
them directly (zonectl.model.chunk_match: places_in, straddler, ...), by sort keys it
computed once; where there is no table it asks `count` and `find` as above."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import islice
from typing import Any, TypeVar

import bson
from bson.binary import Binary
from bson.min_key import MinKey
from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.chunk_match import Chunks, parse_shape
from zonectl.model.keys import SortKey
from zonectl.mongo.connect import Connection
from zonectl.mongo.state import WHOLE
from zonectl.mongo.whole_reads import Read, WholeReads

T = TypeVar("T")
# Sub-pipelines per nested group and groups per aggregate: a pipeline holds at most 1,000
# stages, a $unionWith's sub-pipeline counted on its own (jstests/sharding/query/
# pipeline_length_limit.js), so two levels carry up to 400 x 400 reads in one command.
GROUP = 400
# Reads per aggregate, by their BSON size: a command is at most 16 MiB.
COMMAND_BYTES = 8 << 20
MAX_ROUNDS = 4  # dependent rounds of replay before reads are sent one by one
TAG = "_zonectlRead"
# A namespace with at most this many chunks is read whole: the readers ask about 6 to 10
# sub-pipelines of it in a plan, each a parse, a plan and an index seek on the server and
# a stage built and encoded here, which cost more than fetching, sending and decoding a
# few dozen chunk documents (about 150 bytes each, 10 KB per namespace at most).
SMALL = 64


# A namespace's equality on config.chunks: a uuid (5.0+, as the client decodes it) or an ns
# (4.4). Values of these types are equal in Python only when equal in BSON (two spellings
# of one uuid, UUID and Binary, are kept apart, never confused; read once, by their BSON).
_BASE_TYPES = (str, uuid.UUID, Binary)
_UNREAD = Chunks([], [], [])  # not read yet (a marker, never answers)
# A rehearsal's table while the namespace is still to be read: no chunks, so every answer
# from it is the stand-in count and find give (0, nothing).
WITHHELD = Chunks([], [], [])


class ChunkBatch:
    """Answers to counts and finds on config.chunks, sent together (see module doc)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.recording = False
        self._answers: dict[bytes, Any] = {}
        self._pending: dict[bytes, list[dict[str, Any]]] = {}
        # uuid or ns -> the namespace's chunks (read whole), None when it is not small
        self._whole: dict[str, dict[Any, Chunks | None]] = {"uuid": {}, "ns": {}}
        self._to_learn: dict[tuple[str, Any], None] = {}  # (field, value) to read whole
        self._stood_in = False  # a rehearsal's answer was not the real one
        self._deferred: list[Callable[[], None]] = []  # a rehearsal's effects, if it is kept
        self.commands = 0  # aggregates and finds sent

    def stand_in(self) -> None:
        """In a rehearsal: a reader gave a stand-in for an answer it did not fetch (a
        dataSize not sent), so the rehearsal is not the run; nothing outside one."""
        if self.recording:
            self._stood_in = True

    def when_real(self, effect: Callable[[], None]) -> None:
        """`effect()` now, or in a rehearsal once the rehearsal is kept as the run."""
        if self.recording:
            self._deferred.append(effect)
        else:
            effect()

    def prefetch(self, bases: Iterable[Mapping[str, Any]]) -> None:
        """Namespaces (their equality on config.chunks) to read whole with the next
        aggregate: the readers about to ask of them then find them read."""
        for base in bases:
            if len(base) != 1:
                continue
            ((field, value),) = base.items()
            known = self._whole.get(field)
            if known is not None and type(value) in _BASE_TYPES and value not in known:
                self._to_learn[(field, value)] = None

    def count(self, query: Mapping[str, Any]) -> int:
        """Chunks matching `query` (the server counts from the index; nothing fetched)."""
        table = self._table(query)
        if table is WITHHELD:
            return 0
        if table is not None:
            found = table.count(islice(query.items(), 1, None))
            if found is not None:
                return found
        stages: list[dict[str, Any]] = [{"$match": dict(query)}, {"$count": "n"}]
        answer = self._ask(stages)
        return int(answer[0]["n"]) if answer else 0

    def count_by_shard(self, query: Mapping[str, Any], shards: Sequence[str]) -> dict[str, int]:
        """shard -> count({**query, "shard": shard}) for each of `shards`: one pass over a
        namespace read whole, else one count per shard (the {uuid, shard, min} index)."""
        table = self._table(query) if "shard" not in query else None
        if table is WITHHELD:
            return dict.fromkeys(shards, 0)
        if table is not None:
            found = table.count_by_shard(islice(query.items(), 1, None), shards)
            if found is not None:
                return found
        return {s: self.count({**query, "shard": s}) for s in shards}

    def find(
        self,
        query: Mapping[str, Any],
        fields: Mapping[str, Any],
        *,
        sort: Mapping[str, int] | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        shape = parse_shape(fields, sort, limit)
        table = self._table(query) if shape is not None else None
        if table is WITHHELD:
            return []
        if table is not None and shape is not None:
            found = table.find(islice(query.items(), 1, None), shape)
            if found is not None:
                return found
        stages: list[dict[str, Any]] = [{"$match": dict(query)}]
        if sort:
            stages.append({"$sort": dict(sort)})
        if limit:
            stages.append({"$limit": limit})
        stages.append({"$project": {**dict(fields), "_id": 0}})
        return [dict(d) for d in self._ask(stages)]

    def table(self, base: Mapping[str, Any]) -> Chunks | None:
        """The chunks of the namespace `base` ({uuid} or {ns}, its equality on
        config.chunks) names, when it was read whole, for a reader's direct questions;
        WITHHELD in a rehearsal while it is still to be read (it is then, with the round's
        other reads, and the rehearsal is not the run); None: ask `count` and `find` (not
        small, not read yet outside a rehearsal, or not an equality this batch keys on).
        Exactly what every count and find on the namespace would look up first."""
        return self._table(base)

    def _table(self, query: Mapping[str, Any]) -> Chunks | None:
        """The chunks of the namespace whose equality `query` starts with, when it was read
        whole (its other conditions are then answered from them, or sent if the module
        does not know them); WITHHELD in a rehearsal while the namespace is still to be
        read (it is then, with the round's other reads); None: ask the server."""
        if not query:
            return None
        field, value = next(iter(query.items()))  # the namespace's equality leads
        known = self._whole.get(field)
        if known is None or type(value) not in _BASE_TYPES:
            return None
        chunks = known.get(value, _UNREAD)
        if chunks is not _UNREAD:
            return chunks
        self._to_learn[(field, value)] = None
        # not foreseen: asked with the namespace's read, in one aggregate
        if self.recording:
            self._stood_in = True
            return WITHHELD
        return None

    def replay(self, reader: Callable[[], T]) -> T:
        """`reader()` answered from as few aggregates as its dependent reads allow. Inside
        another replay's rehearsal it only rehearses (the outer one sends)."""
        if self.recording:
            return reader()
        self.run()  # the namespaces prefetched
        # One more round than MAX_ROUNDS: the first may only read namespaces whole.
        for _ in range(MAX_ROUNDS + 1):
            self.recording, self._stood_in, self._deferred = True, False, []
            try:
                result = reader()
            finally:
                self.recording = False
            deferred, self._deferred = self._deferred, []
            if not self._stood_in:  # every answer was real: this was the run
                for effect in deferred:
                    effect()
                return result
            if not self._pending and not self._to_learn:
                break  # a stand-in no aggregate answers (a dataSize): run for real
            self.run()
        return reader()

    def run(self) -> None:
        """Send every pending read, with the counts of the namespaces to read whole, in one
        aggregate; then fetch the small ones (module doc)."""
        pending, self._pending = list(self._pending.items()), {}
        learn, self._to_learn = list(self._to_learn), {}
        if not pending and not learn:
            return
        whole = WholeReads(learn, self.conn.client.codec_options)
        counts = whole.count_reads()
        reads: list[Read] = [(len(key), stages) for key, stages in pending]
        results = self._send([*reads, *counts])
        for (key, _), found in zip(pending, results[: len(pending)], strict=True):
            self._answers[key] = found
        whole.counted(zip(counts, results[len(pending) :], strict=True))
        self.commands += whole.fetch(self.conn, SMALL)
        for (field, value), chunks in zip(learn, whole.chunks(SMALL), strict=True):
            self._whole[field][value] = chunks

    def _send(self, reads: list[Read]) -> list[list[dict[str, Any]]]:
        """Each read's answer, from one aggregate (one per COMMAND_BYTES of reads)."""
        results: list[list[dict[str, Any]]] = [[] for _ in reads]
        start = 0
        while start < len(reads):
            size, end = 0, start
            while end < len(reads) and (end == start or size + reads[end][0] <= COMMAND_BYTES):
                size += reads[end][0]
                end += 1
            branches = [
                [*stages, {"$set": {TAG: i}}] for i, (_, stages) in enumerate(reads[start:end])
            ]
            groups = [_chained(branches[i : i + GROUP]) for i in range(0, len(branches), GROUP)]
            try:
                # One reply batch (up to 16 MiB) where it fits, so no getMore follows.
                docs = self.conn.client.config.chunks.aggregate(_chained(groups), batchSize=WHOLE)
                self.commands += 1
                for doc in docs:
                    results[start + int(doc.pop(TAG))].append(doc)
            except PyMongoError as exc:
                raise ClusterError(
                    f"{self.conn.uri}: reading config.chunks failed: {redact(str(exc))}"
                ) from None
            start = end
        return results

    def _ask(self, stages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # The client's codec options: a URI with uuidRepresentation decodes uuids as UUID
        key = bson.encode({"s": stages}, codec_options=self.conn.client.codec_options)
        if key in self._answers:
            return list(self._answers[key])
        self._pending[key] = stages
        if self.recording:
            self._stood_in = True
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
    if _bottom(lo):
        return []
    query = {**base, "min": {"$lt": dict(lo)}, "max": {"$gte" if inclusive else "$gt": dict(lo)}}
    return batch.find(query, fields, sort={"min": -1}, limit=1)


def straddling_in(
    table: Chunks, lo: Mapping[str, Any], key: SortKey, keep: frozenset[str], *, inclusive: bool
) -> list[dict[str, Any]]:
    """`straddling` asked of a namespace's table (ChunkBatch.table): `key` is sort_key(lo),
    `keep` the projection's fields (kept_fields)."""
    at = table.straddler(key, inclusive=inclusive)
    return [] if at is None or _bottom(lo) else table.docs((at,), keep)


def _bottom(lo: Mapping[str, Any]) -> bool:
    """An all-MinKey bound: no chunk starts before it."""
    return all(isinstance(v, MinKey) for v in lo.values())
