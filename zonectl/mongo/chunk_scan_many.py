"""Compliance scans of many collections in one cursor: `{uuid: {$in: [...]}}` sorted by
(uuid, min), which the unique {uuid, min} index of config.chunks serves (one index walk per
uuid, in uuid order), split per collection as it streams. A status of 1,000 collections
sends one find and its getMores (by bytes), not a find per collection."""

from __future__ import annotations

import itertools
import operator
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

import bson
from bson import Binary
from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import LiveRange
from zonectl.model.layout import ChunkLayout
from zonectl.mongo.chunk_scan import (
    BATCH_SIZE,
    PROJECTION,
    ChunkCompliance,
    chunk_filter,
    read_chunk_compliance,
    scan_compliance,
)
from zonectl.mongo.connect import Connection

Doc = Mapping[str, Any]


def read_many_compliance(
    conn: Connection,
    collections: Sequence[Doc],
    ranges_of: Callable[[str], Sequence[LiveRange]],
    shard_zones: Mapping[str, Iterable[str]],
    layouts: Mapping[str, ChunkLayout] | None = None,
) -> dict[str, ChunkCompliance]:
    """ns -> its compliance, for each config.collections entry in `collections`. In one
    cursor where the chunks name their collection by uuid (5.0+); else one pass each."""
    layouts = layouts or {}
    shard_zones = {s: frozenset(z) for s, z in shard_zones.items()}  # once, not per scan
    by_uuid = [c for c in collections if "uuid" in chunk_filter(c, conn.version)]
    out = {
        str(c["_id"]): read_chunk_compliance(
            conn, c, ranges_of(str(c["_id"])), shard_zones, layout=layouts.get(str(c["_id"]))
        )
        for c in collections
        if "uuid" not in chunk_filter(c, conn.version)
    }
    if not by_uuid:
        return out
    for coll, chunks in stream_by_collection(conn, by_uuid, PROJECTION):
        ns = str(coll["_id"])
        out[ns] = scan_compliance(
            chunks, ranges_of(ns), shard_zones, next(iter(coll["key"])), layout=layouts.get(ns)
        )
    for coll in by_uuid:  # a collection without chunks (mid-drop): nothing to scan
        ns = str(coll["_id"])
        if ns not in out:
            out[ns] = scan_compliance([], ranges_of(ns), shard_zones, next(iter(coll["key"])))
    return out


def stream_by_collection(
    conn: Connection, collections: Sequence[Doc], projection: Mapping[str, Any]
) -> Iterator[tuple[Doc, Iterator[dict[str, Any]]]]:
    """(config.collections entry, its chunks in min order, without their `uuid`) for each of
    `collections` (all in the uuid form) that has chunks, from one cursor sorted by (uuid,
    min). Consume each collection's chunks before the next pair is drawn."""
    if not collections:
        return
    options = conn.client.codec_options
    ns_of = {_uuid_key(c["uuid"], options): c for c in collections}
    try:
        cursor = conn.client.config.chunks.find_raw_batches(
            {"uuid": {"$in": [c["uuid"] for c in collections]}},
            {**projection, "uuid": 1},
            sort=[("uuid", 1), ("min", 1)],
            batch_size=BATCH_SIZE,
        )
        keyed = (pair for raw in cursor for pair in _by_uuid(cast(bytes, raw), options))
        # Consecutive chunks of one collection carry the same uuid (the sort's first field).
        for key, pairs in itertools.groupby(keyed, key=operator.itemgetter(0)):
            coll = ns_of.get(key)
            if coll is not None:
                yield coll, (doc for _, doc in pairs)
        cursor.close()
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: reading chunks failed: {redact(str(exc))}") from None


_UUID_FIELD = b"\x05uuid\x00"  # a binary element named uuid
_INT32 = struct.Struct("<i")


def _uuid_key(value: Any, options: Any) -> bytes:
    """A uuid as its BSON value's bytes (length, subtype, data): equal exactly when the
    values are (as the server compares and sorts them), whatever type the codec gives."""
    try:
        raw = bson.encode({"uuid": value}, codec_options=options)
    except ValueError:  # a uuid.UUID with no representation set: the standard one (4)
        raw = bson.encode({"uuid": Binary.from_uuid(value)}, codec_options=options)
    return raw[4 + len(_UUID_FIELD) : -1] if raw[4:10] == _UUID_FIELD else raw


def _by_uuid(batch: bytes, options: Any) -> list[tuple[bytes, dict[str, Any]]]:
    """(uuid key, the chunk without its uuid) for each document of a raw batch. The uuid
    element leads the projected chunk (config.chunks' field order) and is cut from the
    bytes before decoding: decoding 40,000 uuids into Binary objects was most of the
    decoding. A chunk where it does not lead is decoded whole."""
    keys: list[bytes | None] = []
    parts: list[bytes] = []
    pos, end = 0, len(batch)
    unpack, pack, head = _INT32.unpack_from, _INT32.pack, len(_UUID_FIELD)
    while pos < end:
        size = unpack(batch, pos)[0]
        if batch.startswith(_UUID_FIELD, pos + 4):
            start = pos + 4 + head
            stop = start + 5 + unpack(batch, start)[0]  # int32 length, subtype, data
            keys.append(batch[start:stop])
            parts.append(pack(size - (stop - pos - 4)) + batch[stop : pos + size])
        else:
            keys.append(None)
            parts.append(batch[pos : pos + size])
        pos += size
    docs = bson.decode_all(b"".join(parts), options)
    out = []
    for key, doc in zip(keys, docs, strict=True):
        if key is None:
            key = _uuid_key(doc.pop("uuid", None), options)
        out.append((key, doc))
    return out
