"""explain's reads do not grow with the number of collections: the same commands, by name
and count, at 20 and at 2,000 sharded collections (a pymongo command listener on the
connection explain runs on). A quarter of them have chunks out of their zone (their ETA
comes from the forecast), a quarter are imbalanced, the rest balanced or below threshold."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pymongo import monitoring

from tests.explain.kit import SHARDS, Kit, make_kit
from zonectl.mongo.connect import connect
from zonectl.session.explain import explain_cluster

S0, S1, S2 = SHARDS


class _Commands(monitoring.CommandListener):
    def __init__(self) -> None:
        self.names: Counter[str] = Counter()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        self.names[event.command_name] += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def _cluster(sandbox_server: Any, n: int) -> Kit:
    kit = make_kit(sandbox_server, "7.0")
    kit.admin.command("addShardToZone", S2, zone="hot")
    for i in range(n):
        ns = f"t.c{i:04d}"
        kind = i % 4
        if kind == 0:  # two chunks of hot on shard0
            kit.collection(ns, [0, 50, 100], [S0, S0, S0, S1])
            kit.zone_range(ns, 0, 100, "hot")
        elif kind == 1:  # imbalanced
            kit.collection(ns, [1, 2, 3, 4, 5], [S0] * 6, mb=1)
        elif kind == 2:  # below the threshold
            kit.collection(ns, [10, 20], [S0, S0, S0])
        else:  # even
            kit.collection(ns, [10, 20], [S0, S1, S2])
    return kit


def _count(kit: Kit) -> tuple[Counter[str], Counter[str]]:
    listener = _Commands()
    with connect(kit.handle.uri, listeners=[listener]) as conn:
        found = explain_cluster(conn)
    return listener.names, Counter(c.state for c in found.collections)


def test_explain_sends_the_same_commands_at_20_and_at_2000_collections(
    sandbox_server: Any,
) -> None:
    small, small_states = _count(_cluster(sandbox_server, 20))
    large, large_states = _count(_cluster(sandbox_server, 2000))
    assert small_states == {"moving": 10, "balanced": 10}
    assert large_states == {"moving": 1000, "balanced": 1000}
    assert large == small
    print(f"explain's commands at 20 and 2,000 collections: {dict(sorted(small.items()))}")
