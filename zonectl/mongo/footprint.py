"""The commands a run sent to the cluster, by kind: a pymongo command listener on the run's
client, so the plan can state its load on the cluster (`server_footprint` in its JSON) and a
test can pin that round trips do not grow with the number of namespaces."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from pymongo import monitoring


class Footprint(monitoring.CommandListener):
    """Counts every command started on the client (each one round trip: a getMore too).
    Thread-safe: concurrent reads run on pool threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._commands: Counter[str] = Counter()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        with self._lock:
            self._commands[event.command_name] += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass

    def snapshot(self) -> dict[str, Any]:
        """{"round_trips": N, "commands": {name: n}} so far (names sorted)."""
        with self._lock:
            commands = dict(sorted(self._commands.items()))
        return {"round_trips": sum(commands.values()), "commands": commands}
