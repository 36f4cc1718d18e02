"""The twin's chunk sidecar beside its YAML: every chunk's exact bounds, owner, jumbo flag,
bytes and documents. BSON records (compact, fast) or Extended JSON lines (`.jsonl`, to edit
by hand); written and read as streams, one collection after another.

Records: a header `{t: "zonectl-twin-chunks", v: 1}`, then per collection `{t: "coll", ns}`
followed by its chunks `{min, max, shard, s: bytes, c: documents[, j: true]}` in key order,
then the migration history the costs were learned from, `{t: "log", e: entry}` each.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import bson
from bson import json_util
from bson.codec_options import CodecOptions
from bson.json_util import JSONMode, JSONOptions

from zonectl.twin.errors import TwinError

MAGIC = "zonectl-twin-chunks"
_OPTS: CodecOptions[dict[str, Any]] = CodecOptions(tz_aware=True)
_JSON = JSONOptions(json_mode=JSONMode.CANONICAL, tz_aware=True)


@dataclass
class CollectionChunks:
    """One collection's chunks as parallel lists (key order, as in the file)."""

    ns: str
    mins: list[dict[str, Any]] = field(default_factory=list)
    maxs: list[dict[str, Any]] = field(default_factory=list)
    shards: list[str] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    jumbo: list[int] = field(default_factory=list)  # indexes

    def __len__(self) -> int:
        return len(self.shards)


def is_jsonl(path: Path) -> bool:
    return path.suffix in (".jsonl", ".json")


class ChunkWriter:
    """Streams records into a temporary file beside `path`; `commit()` renames it over."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.jsonl = is_jsonl(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, self.tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        self._out: IO[bytes] = os.fdopen(fd, "wb")
        self.chunks = 0
        self._write({"t": MAGIC, "v": 1})

    def _write(self, record: Mapping[str, Any]) -> None:
        if self.jsonl:
            self._out.write(json_util.dumps(record, json_options=_JSON).encode() + b"\n")
        else:
            self._out.write(bson.encode(record))

    def collection(self, ns: str) -> None:
        self._write({"t": "coll", "ns": ns})

    def chunk(
        self,
        lo: Mapping[str, Any],
        hi: Mapping[str, Any],
        shard: str,
        nbytes: int,
        docs: int,
        jumbo: bool = False,
    ) -> None:
        record: dict[str, Any] = {"min": lo, "max": hi, "shard": shard, "s": nbytes, "c": docs}
        if jumbo:
            record["j"] = True
        self._write(record)
        self.chunks += 1

    def history(self, entry: Mapping[str, Any]) -> None:
        """One config.changelog entry, as `history.sanitize` kept it."""
        self._write({"t": "log", "e": entry})

    def mark(self) -> tuple[int, int]:
        """Where the file is now, to `rewind` to (a collection captured again)."""
        return self._out.tell(), self.chunks

    def rewind(self, mark: tuple[int, int]) -> None:
        self._out.seek(mark[0])
        self._out.truncate()
        self.chunks = mark[1]

    def commit(self) -> None:
        self._out.flush()
        os.fsync(self._out.fileno())
        self._out.close()
        os.chmod(self.tmp, 0o644)
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self._out.close()
        Path(self.tmp).unlink(missing_ok=True)

    def __enter__(self) -> ChunkWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is not None:
            self.abort()


def _records(path: Path) -> Iterator[dict[str, Any]]:
    try:
        f = path.open("rb")
    except OSError as exc:
        raise TwinError(f"{path}: cannot read the twin's chunk file: {exc.strerror}") from None
    with f:
        if is_jsonl(path):
            for n, line in enumerate(f, 1):
                if line.strip():
                    try:
                        yield json_util.loads(line, json_options=_JSON)
                    except (ValueError, json.JSONDecodeError) as exc:
                        raise TwinError(f"{path}:{n}: not Extended JSON: {exc}") from None
            return
        try:  # decode_all is C throughout: a 200,000-chunk file in a fraction of a second
            yield from bson.decode_all(f.read(), codec_options=_OPTS)
        except bson.errors.InvalidBSON as exc:
            raise TwinError(f"{path}: truncated or corrupt chunk file: {exc}") from None


def read(path: Path, history: list[dict[str, Any]] | None = None) -> Iterator[CollectionChunks]:
    """Each collection's chunks, in file order (checked by `coverage.check`, not here);
    the history entries are appended to `history` when it is given."""
    records = _records(path)
    head = next(records, None)
    if head is None or head.get("t") != MAGIC:
        raise TwinError(f"{path}: not a zonectl twin chunk file (no {MAGIC!r} header)")
    current: CollectionChunks | None = None
    for n, rec in enumerate(records, 2):
        if rec.get("t") == "log":
            if history is not None and isinstance(rec.get("e"), dict):
                history.append(rec["e"])
            continue
        if rec.get("t") == "coll":
            if current is not None:
                yield current
            current = CollectionChunks(str(rec["ns"]))
            continue
        if current is None or not {"min", "max", "shard"} <= rec.keys():
            raise TwinError(f"{path}: record {n}: a chunk needs min, max and shard after a coll")
        if rec.get("j"):
            current.jumbo.append(len(current))
        current.mins.append(rec["min"])
        current.maxs.append(rec["max"])
        current.shards.append(str(rec["shard"]))
        current.sizes.append(int(rec.get("s", 0)))
        current.counts.append(int(rec.get("c", 0)))
    if current is not None:
        yield current
