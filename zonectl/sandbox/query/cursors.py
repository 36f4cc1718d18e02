"""Open cursors: an id, a namespace and a stream of encoded documents served batch by batch.

Batches are built from BSON bytes, never decoded: a `RawBSONDocument` from a scan is sent as
is. Batch limits follow mongod's `FindCommon::haveSpaceForNext`: the first document always
goes, later ones only while the batch stays within 16 MiB (BSONObjMaxUserSize). Idle
cursors die after 10 minutes (`cursorTimeoutMillis` default, mongo:src/mongo/db/query/
query_knobs.idl).
"""

from __future__ import annotations

import itertools
import random
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

MAX_BATCH_BYTES = 16 * 1024 * 1024
IDLE_TIMEOUT_S = 600.0


@dataclass
class Cursor:
    id: int
    namespace: str
    docs: Iterator[bytes]
    remaining: int | None = None  # documents still allowed by `limit`, None = unlimited
    owner: str | None = None  # "user@db" that opened it, checked on getMore when auth is on
    last_used: float = field(default_factory=time.monotonic)
    _peeked: bytes | None = None

    def next_batch(self, batch_size: int | None) -> tuple[list[bytes], bool]:
        """Up to `batch_size` docs (None = until 16 MiB); True when the cursor is exhausted.

        This loop is the hot path of large finds, so it stays flat: no per-document calls.
        """
        self.last_used = time.monotonic()
        cap = batch_size if batch_size is not None else 1 << 62
        if self.remaining is not None:
            cap = min(cap, self.remaining)
        batch: list[bytes] = []
        append = batch.append
        size = 0
        if self._peeked is not None and cap > 0:
            append(self._peeked)
            size = len(self._peeked)
            self._peeked = None
        # Take documents a block at a time so sizes are summed in C; only the block that
        # crosses the 16 MiB line is walked one document at a time.
        while len(batch) < cap and self._peeked is None:
            block = list(itertools.islice(self.docs, min(1024, cap - len(batch))))
            if not block:
                break
            block_size = sum(map(len, block))
            if size + block_size <= MAX_BATCH_BYTES:
                batch.extend(block)
                size += block_size
                continue
            for i, doc in enumerate(block):
                if batch and size + len(doc) > MAX_BATCH_BYTES:
                    rest = block[i:]
                    self._peeked = rest[0]
                    self.docs = itertools.chain(rest[1:], self.docs)
                    break
                append(doc)
                size += len(doc)
        if self.remaining is not None:
            self.remaining -= len(batch)
            if self.remaining <= 0:
                return batch, True
        if self._peeked is None:
            # Look ahead one document so a drained cursor reports id 0 at once, as mongod
            # does when the plan is EOF, and the client needs no empty getMore.
            self._peeked = next(self.docs, None)
        return batch, self._peeked is None


def encode_cursor(batch: list[bytes], cursor_id: int, namespace: str, first: bool) -> bytes:
    """The `cursor` sub-document {firstBatch|nextBatch: [...], id, ns} built from raw bytes,
    so a batch of 100,000 documents is one join instead of 100,000 encoder calls."""
    keys = _array_keys(len(batch))
    array_body = b"".join(itertools.chain.from_iterable(zip(keys, batch, strict=False)))
    array = struct.pack("<i", len(array_body) + 5) + array_body + b"\x00"
    ns = namespace.encode()
    body = b"".join(
        (
            b"\x04firstBatch\x00" if first else b"\x04nextBatch\x00",
            array,
            b"\x12id\x00",
            struct.pack("<q", cursor_id),
            b"\x02ns\x00",
            struct.pack("<i", len(ns) + 1),
            ns,
            b"\x00",
        )
    )
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


_KEYS: list[bytes] = []


def _array_keys(n: int) -> list[bytes]:
    """Element headers b"\\x03<i>\\x00" (embedded document, key "i") for a BSON array."""
    while len(_KEYS) < n:
        i = len(_KEYS)
        _KEYS.append(b"\x03" + str(i).encode() + b"\x00")
    return _KEYS if len(_KEYS) == n else _KEYS[:n]


class CursorManager:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cursors: dict[int, Cursor] = {}
        self._ids = itertools.count(1)
        self._random = random.Random()

    def open(
        self,
        namespace: str,
        docs: Iterator[bytes],
        *,
        remaining: int | None = None,
        owner: str | None = None,
    ) -> Cursor:
        with self._lock:
            self._reap()
            # Positive 63-bit ids, like mongod's; never 0 (0 means "no cursor").
            cursor_id = (self._random.getrandbits(40) << 20) | (next(self._ids) & 0xFFFFF) or 1
            cursor = Cursor(cursor_id, namespace, docs, remaining, owner)
            self._cursors[cursor_id] = cursor
            return cursor

    def get(self, cursor_id: int) -> Cursor | None:
        with self._lock:
            return self._cursors.get(cursor_id)

    def close(self, cursor_id: int) -> bool:
        with self._lock:
            return self._cursors.pop(cursor_id, None) is not None

    def __len__(self) -> int:
        with self._lock:
            return len(self._cursors)

    def _reap(self) -> None:
        deadline = time.monotonic() - IDLE_TIMEOUT_S
        for cursor_id in [c.id for c in self._cursors.values() if c.last_used < deadline]:
            del self._cursors[cursor_id]
