"""Ctrl-C for an apply or rotate running off the main thread (a fleet run's worker): Python
delivers signals to the main thread only, so the fleet runner sets the run's `Stop` and the
run observes it between steps and moves, unwinding as a KeyboardInterrupt exactly as the
single-cluster command does; `Stop.held` says what the run would still have to restore."""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass
class Stop:
    requested: threading.Event = field(default_factory=threading.Event)
    # What the run has changed and restores on its way out, in the order taken.
    held: dict[int, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _keys: Iterator[int] = field(default_factory=itertools.count)

    def holding(self) -> list[str]:
        """Latest first: the order they are restored in."""
        with self._lock:
            return list(reversed(self.held.values()))

    def take(self, what: str) -> int:
        with self._lock:
            key = next(self._keys)
            self.held[key] = what
            return key

    def drop(self, key: int) -> None:
        with self._lock:
            self.held.pop(key, None)


STOP: contextvars.ContextVar[Stop | None] = contextvars.ContextVar("zonectl_stop", default=None)


def stop_requested() -> bool:
    stop = STOP.get()
    return stop is not None and stop.requested.is_set()


def check_stop() -> None:
    """Between two steps: a requested stop unwinds like Ctrl-C in the single-cluster run."""
    if stop_requested():
        raise KeyboardInterrupt("stop requested")


@contextlib.contextmanager
def holding(what: str) -> Iterator[None]:
    """Name something the run must restore (balancing, the journal, the lease) while held."""
    stop = STOP.get()
    if stop is None:
        yield
        return
    key = stop.take(what)
    try:
        yield
    finally:
        stop.drop(key)
