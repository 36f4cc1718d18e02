"""How long the cluster has been unreachable, from pymongo's own server monitoring: every
mongos of the URI failed its last heartbeat since that instant (apply/reach.py decides
when a run stops waiting for it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from pymongo import monitoring


class Reachability(monitoring.ServerHeartbeatListener):
    """Fed by the client's monitor threads: a failed heartbeat marks its mongos down, a
    succeeded one up. `down_s()`: seconds since every known mongos was down; 0 while one
    answers (or before any heartbeat)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._up: dict[object, bool] = {}
        self._down_since: float | None = None

    def down_s(self) -> float:
        with self._lock:
            since = self._down_since
        return 0.0 if since is None else max(self._clock() - since, 0.0)

    def _mark(self, address: object, up: bool) -> None:
        with self._lock:
            self._up[address] = up
            if any(self._up.values()):
                self._down_since = None
            elif self._down_since is None:
                self._down_since = self._clock()

    def started(self, event: monitoring.ServerHeartbeatStartedEvent) -> None:
        pass

    def succeeded(self, event: monitoring.ServerHeartbeatSucceededEvent) -> None:
        self._mark(event.connection_id, True)

    def failed(self, event: monitoring.ServerHeartbeatFailedEvent) -> None:
        self._mark(event.connection_id, False)
