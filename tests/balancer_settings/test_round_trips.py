"""Planning the settings table adds no round trip (issue 30, Performance): the cluster's
settings documents come in the one config.settings read the balancer document already
took, and a collection's settings fields in its config.collections entry. Only
`defragment` reads more, and only while one runs (balancerCollectionStatus) or to find
zonectl's own record of it (one query)."""

from __future__ import annotations

import collections
import datetime as dt
from pathlib import Path
from typing import Any

from pymongo import monitoring

from tests.balancer_settings.kit import policy, serve
from zonectl.mongo import connect
from zonectl.mongo.resolve import read_resolved
from zonectl.plan.planner import make_plan
from zonectl.policy import load_policy


class _Count(monitoring.CommandListener):
    def __init__(self) -> None:
        self.sent: collections.Counter[str] = collections.Counter()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name not in ("hello", "isMaster", "endSessions"):
            self.sent[event.command_name] += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def _round_trips(uri: str, path: str) -> collections.Counter[str]:
    desired = load_policy([path]).desired
    count = _Count()
    with connect(uri, listeners=[count]) as conn:
        now = dt.datetime.now(dt.UTC)
        resolved = read_resolved(conn, desired, now)
        make_plan(resolved.desired, resolved.actual, boundaries={}, at=now)
    return count.sent


def test_every_settings_key_plans_in_the_same_round_trips_as_none(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve(sandbox_server, "7.0")
    plain = "balancer:\n  enabled: true\ncollections:\n  app.events:\n    balancing: true\n"
    every = (
        "balancer:\n  enabled: true\n  chunkSizeMB: 64\n  secondaryThrottle: true\n"
        "  waitForDelete: true\n  attemptToBalanceJumboChunks: false\n  autoMerger: false\n"
        "collections:\n  app.events:\n    balancing: true\n    chunkSizeMB: 32\n"
        "    autoMerger: false\n"
    )
    without = _round_trips(handle.uri, policy(tmp_path, plain, "a.yaml"))
    with_settings = _round_trips(handle.uri, policy(tmp_path, every, "b.yaml"))
    assert with_settings == without, (without, with_settings)
    defrag = every + "    defragment: true\n"
    more = _round_trips(handle.uri, policy(tmp_path, defrag, "c.yaml")) - without
    assert more == collections.Counter({"find": 1})  # zonectl's own record, nothing else
