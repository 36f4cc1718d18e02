"""Compliance scans of many collections in one cursor: `{uuid: {$in: [...]}}` sorted by
(uuid, min), which the unique {uuid, min} index of config.chunks serves (one index walk per
uuid, in uuid order), split per collection as it streams. A status of 1,000 collections
sends one find and its getMores (by bytes), not a find per collection."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

import bson
from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import LiveRange
from zonectl.model.keys import sort_key
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
    """(config.collections entry, its chunks in min order) for each of `collections` (all
    in the uuid form) that has chunks, from one cursor sorted by (uuid, min). Consume each
    collection's chunks before the next pair is drawn."""
    if not collections:
        return
    ns_of = {sort_key(c["uuid"]): c for c in collections}
    try:
        cursor = conn.client.config.chunks.find_raw_batches(
            {"uuid": {"$in": [c["uuid"] for c in collections]}},
            {**projection, "uuid": 1},
            sort=[("uuid", 1), ("min", 1)],
            batch_size=BATCH_SIZE,
        )
        options = conn.client.codec_options
        docs = (d for raw in cursor for d in bson.decode_all(cast(bytes, raw), options))
        # Consecutive chunks of one collection carry equal uuids (the sort's first field):
        # each group's uuid is put in BSON order once, not each chunk's.
        for uuid, chunks in itertools.groupby(docs, key=operator.itemgetter("uuid")):
            coll = ns_of.get(sort_key(uuid))
            if coll is not None:
                yield coll, chunks
        cursor.close()
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: reading chunks failed: {redact(str(exc))}") from None
