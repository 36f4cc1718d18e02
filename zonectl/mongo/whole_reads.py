"""Namespaces read whole by grouped reads of config.chunks, whose cost follows the chunks,
not the namespaces: a `$group` counts the chunks of every namespace asked, then one `$in`
find fetches those of the namespaces with at most `small` chunks.

The count walks every index key of the namespaces asked, no document fetched (a pipeline
that needs only fields of an index is covered: jstests/aggregation/use_query_projection.js;
$group's dependencies are its _id and accumulator fields). Where a namespace has more than
`small` chunks this is more than the SMALL + 1 keys a per-namespace read walked, but not
more than a plan reads anyway for each namespace it migrates: its estimates count every
chunk of it by shard (ChunkSizes.shard_counts, one COUNT_SCAN per shard)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import bson
from bson.codec_options import CodecOptions
from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.chunk_match import FIELDS, Chunks
from zonectl.mongo.connect import Connection
from zonectl.mongo.state import WHOLE

# Values per `$in` and per command, by their BSON size: a command is at most 16 MiB, so
# 200,000 uuids (5.8 MB) go in one, and nothing any number of namespaces asks is refused.
PIECE_BYTES = 2 << 20
Read = tuple[int, list[dict[str, Any]]]  # (its size in BSON, about), its stages


def key(value: Any, options: CodecOptions[Any]) -> bytes:
    """A namespace's equality value as BSON: two values are one when the server finds them
    equal (a UUID and a subtype-4 Binary of it), whatever type the client decodes."""
    return bson.encode({"": value}, codec_options=options)


def _pieces(values: Mapping[bytes, Any]) -> list[tuple[int, list[Any]]]:
    """The values in lists of at most PIECE_BYTES of BSON each, with their sizes."""
    out: list[tuple[int, list[Any]]] = []
    size, piece = 0, list[Any]()
    for raw, value in values.items():
        if size + len(raw) > PIECE_BYTES and piece:
            out.append((size, piece))
            size, piece = 0, list[Any]()
        piece.append(value)
        size += len(raw)
    if piece:
        out.append((size, piece))
    return out


def fetch_spec(field: str, values: list[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The filter and projection of the find that fetches the chunks of namespaces."""
    return {field: {"$in": values}}, {field: 1, **dict.fromkeys(FIELDS, 1), "_id": 0}


class WholeReads:
    """One run's namespaces (field, value) to read whole: `count_reads` for the run's
    aggregate, then `fetch` with their answers, then `chunks` per namespace asked."""

    def __init__(self, asked: Sequence[tuple[str, Any]], options: CodecOptions[Any]) -> None:
        self.asked = list(asked)
        self.options = options
        self._by_field: dict[str, dict[bytes, Any]] = {}  # key -> one value of that key
        for field, value in self.asked:
            self._by_field.setdefault(field, {}).setdefault(key(value, options), value)
        self._counts: dict[tuple[str, bytes], int] = {}
        self._found: dict[tuple[str, bytes], list[dict[str, Any]]] = {}

    def count_reads(self) -> list[Read]:
        """Per field and piece: its namespaces' chunk counts, one document per namespace
        with chunks ({_id: value, n}), from the {uuid, min} index alone (module doc)."""
        return [
            (
                size + 128,
                [
                    {"$match": {field: {"$in": piece}}},
                    {"$group": {"_id": f"${field}", "n": {"$sum": 1}}},
                ],
            )
            for field, values in self._by_field.items()
            for size, piece in _pieces(values)
        ]

    def counted(self, results: Iterable[tuple[Read, list[dict[str, Any]]]]) -> None:
        """The count reads' answers, each with its read."""
        for (_, stages), docs in results:
            field = next(iter(stages[0]["$match"]))
            for doc in docs:
                self._counts[(field, key(doc["_id"], self.options))] = int(doc["n"])

    def fetch(self, conn: Connection, small: int) -> int:
        """Fetch the chunks of every namespace counted with 1 to `small` chunks (one find
        per field and piece; its getMores follow the bytes); the finds sent."""
        sent = 0
        for field, values in self._by_field.items():
            wanted = {
                k: v for k, v in values.items() if 0 < self._counts.get((field, k), 0) <= small
            }
            for _, piece in _pieces(wanted):
                self._read(conn, field, piece)
                sent += 1
        return sent

    def _read(self, conn: Connection, field: str, values: list[Any]) -> None:
        try:
            cursor = conn.client.config.chunks.find_raw_batches(
                *fetch_spec(field, values), batch_size=WHOLE
            )
            # by the decoded value first (equal values of one codec are equal in BSON), so
            # each namespace's value is encoded once, not each chunk's
            by_value: dict[Any, list[dict[str, Any]]] = {}
            for raw in cursor:
                for doc in bson.decode_all(cast(bytes, raw), self.options):
                    by_value.setdefault(doc.pop(field, None), []).append(doc)
            for value, docs in by_value.items():
                self._found.setdefault((field, key(value, self.options)), []).extend(docs)
        except PyMongoError as exc:
            raise ClusterError(
                f"{conn.uri}: reading config.chunks failed: {redact(str(exc))}"
            ) from None

    def chunks(self, small: int) -> list[Chunks | None]:
        """Per namespace asked, its chunks (in memory), or None when it has more than
        `small` (or chunks zonectl.model.chunk_match cannot answer for exactly). A
        namespace the count found no chunk of has none: the count matched its value as
        the equality does (`$in` of one value is that value's equality), and values are
        compared as BSON. The fetched chunks decide, not the count: a namespace split
        past `small` between the two reads is read by targeted queries."""
        out: list[Chunks | None] = []
        for field, value in self.asked:
            owner = (field, key(value, self.options))
            n = self._counts.get(owner, 0)
            found = self._found.get(owner, [])
            if n == 0:
                out.append(Chunks.of([]))
            elif n > small or len(found) > small:
                out.append(None)
            else:
                out.append(Chunks.of(found))
        return out
