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
        """Up to `batch_size` docs (None = until 16 MiB); True when the cursor is exhausted."""
        self.last_used = time.monotonic()
        batch: list[bytes] = []
        size = 0
        while batch_size is None or len(batch) < batch_size:
            if self.remaining is not None and self.remaining <= 0:
                return batch, True
            doc = self._next()
            if doc is None:
                return batch, True
            if batch and size + len(doc) > MAX_BATCH_BYTES:
                self._peeked = doc
                return batch, False
            batch.append(doc)
            size += len(doc)
            if self.remaining is not None:
                self.remaining -= 1
        # Look ahead one document so a drained cursor reports id 0 at once, as mongod does
        # when the plan is EOF, and the client does not need an empty getMore.
        if self.remaining is not None and self.remaining <= 0:
            return batch, True
        nxt = self._next()
        if nxt is None:
            return batch, True
        self._peeked = nxt
        return batch, False

    def _next(self) -> bytes | None:
        if self._peeked is not None:
            doc, self._peeked = self._peeked, None
            return doc
        return next(self.docs, None)


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
