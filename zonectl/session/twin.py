"""`zonectl twin`: capture a cluster (read-only, zonectl/mongo/twin_read.py) or a config dump
(zonectl/twin/dump.py) and write the twin's files (zonectl/twin/write.py). Prints nothing:
the notes of what could not be captured come back with what was written."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zonectl.mongo.connect import Connection
from zonectl.mongo.twin_read import AGAIN, LiveCapture
from zonectl.twin.capture import Capture
from zonectl.twin.chunkfile import ChunkWriter
from zonectl.twin.write import Written, write_twin

Render = Callable[[Mapping[str, Any]], str]  # the cluster file's YAML from its document


@dataclass(frozen=True)
class TwinFiles:
    """Where the twin went, and what the capture says about itself."""

    written: Written
    capture: Capture


def twin_from_cluster(
    conn: Connection,
    out: Path,
    *,
    render: Render,
    measure: bool = False,
    jsonl: bool = False,
    anonymize: bool = False,
) -> TwinFiles:
    """Read the cluster and write its twin to `out` (and its chunk sidecar beside it)."""
    live = LiveCapture(conn, measure=measure)
    capture = live.capture()

    def read_chunks(coll: Mapping[str, Any], writer: ChunkWriter) -> None:
        mark = writer.mark()
        held: dict[str, list[int]] = {}  # shard -> [bytes, documents] the twin gives it
        for row in live.read_chunks(coll):
            if row is AGAIN:  # the collection changed while read: read again from its start
                writer.rewind(mark)
                held = {}
            else:
                writer.chunk(row.min, row.max, row.shard, row.nbytes, row.docs, row.jumbo)
                have = held.setdefault(row.shard, [0, 0])
                have[0] += row.nbytes
                have[1] += row.docs
        for shard, figures in held.items():
            capture.held[(shard, str(coll["_id"]))] = figures

    written = write_twin(capture, read_chunks, out, render=render, jsonl=jsonl, anonymize=anonymize)
    return TwinFiles(written, capture)


def twin_from_dump(
    dump: Path | None,
    archive: Path | None,
    out: Path,
    *,
    render: Render,
    jsonl: bool = False,
    anonymize: bool = False,
) -> TwinFiles:
    """Read a `mongodump --db config` directory or archive and write its twin to `out`."""
    from zonectl.twin.dump import capture_dump

    capture, reader = capture_dump(dump, archive)
    written = write_twin(capture, reader, out, render=render, jsonl=jsonl, anonymize=anonymize)
    return TwinFiles(written, capture)
