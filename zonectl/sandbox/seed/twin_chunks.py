"""The sandbox's reader of a twin's chunk sidecar, and its check that each collection's chunks
cover MinKey to MaxKey with no gap, no overlap and min < max, in the sandbox's own key order.

The format is zonectl.twin.chunkfile's, which writes it; the sandbox reads it on its own so
that nothing of zonectl's twin code runs inside what the twin is rehearsed on:
tests/twin/test_twin_file.py round-trips a twin written by zonectl.twin through this reader.
BSON records (or Extended JSON lines for `.jsonl`/`.json`): a header
`{t: "zonectl-twin-chunks", v: 1}`, per collection `{t: "coll", ns}` then its chunks
`{min, max, shard, s: bytes, c: documents[, j: true]}` in key order, and history entries
`{t: "log", e: entry}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bson
from bson import json_util
from bson.codec_options import CodecOptions
from bson.json_util import JSONMode, JSONOptions

from zonectl.errors import InvalidPolicyError
from zonectl.sandbox.keyorder import encode

MAGIC = "zonectl-twin-chunks"
_OPTS: CodecOptions[dict[str, Any]] = CodecOptions(tz_aware=True)
_JSON = JSONOptions(json_mode=JSONMode.CANONICAL, tz_aware=True)


class TwinFileError(InvalidPolicyError):
    """A twin that cannot be loaded (truncated file, overlapping chunks...): exit 3."""


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


def _records(path: Path) -> Iterator[dict[str, Any]]:
    try:
        f = path.open("rb")
    except OSError as exc:
        raise TwinFileError(f"{path}: cannot read the twin's chunk file: {exc.strerror}") from None
    with f:
        if path.suffix in (".jsonl", ".json"):
            for n, line in enumerate(f, 1):
                if line.strip():
                    try:
                        yield json_util.loads(line, json_options=_JSON)
                    except (ValueError, json.JSONDecodeError) as exc:
                        raise TwinFileError(f"{path}:{n}: not Extended JSON: {exc}") from None
            return
        try:  # decode_all is C throughout: a 200,000-chunk file in a fraction of a second
            yield from bson.decode_all(f.read(), codec_options=_OPTS)
        except bson.errors.InvalidBSON as exc:
            raise TwinFileError(f"{path}: truncated or corrupt chunk file: {exc}") from None


def read(path: Path, history: list[dict[str, Any]]) -> Iterator[CollectionChunks]:
    """Each collection's chunks, in file order (checked by `check`, not here); the history
    entries are appended to `history`."""
    records = _records(path)
    head = next(records, None)
    if head is None or head.get("t") != MAGIC:
        raise TwinFileError(f"{path}: not a zonectl twin chunk file (no {MAGIC!r} header)")
    current: CollectionChunks | None = None
    for n, rec in enumerate(records, 2):
        if rec.get("t") == "log":
            if isinstance(rec.get("e"), dict):
                history.append(rec["e"])
            continue
        if rec.get("t") == "coll":
            if current is not None:
                yield current
            current = CollectionChunks(str(rec["ns"]))
            continue
        if current is None or not {"min", "max", "shard"} <= rec.keys():
            raise TwinFileError(
                f"{path}: record {n}: a chunk needs min, max and shard after a coll"
            )
        if rec.get("j"):
            current.jumbo.append(len(current))
        current.mins.append(rec["min"])
        current.maxs.append(rec["max"])
        current.shards.append(str(rec["shard"]))
        current.sizes.append(int(rec.get("s", 0)))
        current.counts.append(int(rec.get("c", 0)))
    if current is not None:
        yield current


def _show(bound: Mapping[str, Any]) -> str:
    return json_util.dumps(bound)


def check(
    chunks: CollectionChunks, key: Mapping[str, Any], source: str, keys: Sequence[bytes]
) -> None:
    """Raise TwinFileError naming the first chunk that leaves a gap, overlaps or is empty;
    `keys` are the mins' keystrings (`keyorder.encode`), which the store keeps too."""
    ns = chunks.ns
    if not len(chunks):
        raise TwinFileError(f"{source}: {ns}: no chunks (a sharded collection has at least one)")
    fields = list(key)

    def where(i: int) -> str:
        lo, hi = _show(chunks.mins[i]), _show(chunks.maxs[i])
        return f"{source}: {ns} chunk {i} {lo} -> {hi} on {chunks.shards[i]}"

    for i, (lo, hi) in enumerate(zip(chunks.mins, chunks.maxs, strict=True)):
        if list(lo) != fields or list(hi) != fields:
            raise TwinFileError(f"{where(i)}: bounds must have exactly the key's fields {fields}")
    # Contiguous (max[i-1] is min[i]: the same bytes, as a split writes them, else the same
    # value in BSON order) and ascending mins, so min < max too: one keystring per chunk.
    for i in range(1, len(chunks)):
        if keys[i] <= keys[i - 1]:
            raise TwinFileError(f"{where(i)}: min is not above the chunk before it: chunks overlap")
        before = chunks.maxs[i - 1]
        if bson.encode(before) != bson.encode(chunks.mins[i]):
            end = encode(before)
            if end != keys[i]:
                what = "overlaps" if end > keys[i] else "leaves a gap after"
                raise TwinFileError(
                    f"{where(i)}: {what} the chunk before it (which ends at {_show(before)})"
                )
    if keys[-1] >= encode(chunks.maxs[-1]):
        raise TwinFileError(f"{where(len(chunks) - 1)}: min is not below max")
    first, last = chunks.mins[0], chunks.maxs[-1]
    if any(not isinstance(v, bson.MinKey) for v in first.values()):
        raise TwinFileError(f"{where(0)}: a gap below it: the first chunk must start at MinKey")
    if any(not isinstance(v, bson.MaxKey) for v in last.values()):
        raise TwinFileError(
            f"{where(len(chunks) - 1)}: a gap above it: the last must end at MaxKey"
        )
