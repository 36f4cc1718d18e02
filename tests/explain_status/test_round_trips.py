"""status shows explain's state per collection from one read of explain's facts: at 20
and at 2,000 sharded collections status sends the same commands, explain the same
commands, and status's are explain's (each as many times: the facts are not read twice)
but for the two reads status makes of zonectl's own database (the apply lease, the open
journals) and the one aggregate explain counts unzoned collections' chunks with, which
status counts in its single chunk pass instead. No balancerCollectionStatus: what it
would say is derived (it used to be one command per collection). A pymongo command
listener on the connection each runs on; the cluster is explain's round-trip one."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pymongo import monitoring

from tests.explain.test_round_trips import _cluster
from zonectl.mongo.connect import connect
from zonectl.session.explain import UTC_FLAGS, explain_cluster
from zonectl.session.status import StatusRequest, read_status_view

Command = tuple[str, str, str]  # (database, command, collection or 1)


class _Commands(monitoring.CommandListener):
    def __init__(self) -> None:
        self.sent: Counter[Command] = Counter()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        target = event.command.get(event.command_name)
        what = str(target) if isinstance(target, str) else ""
        self.sent[(event.database_name, event.command_name, what)] += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def _sent(uri: str) -> tuple[Counter[Command], Counter[Command], Counter[str], Counter[str]]:
    """(status's commands, explain's, status's states, explain's states)."""
    by_status, by_explain = _Commands(), _Commands()
    with connect(uri, listeners=[by_status]) as conn:
        view = read_status_view(conn, StatusRequest("zonectl", UTC_FLAGS))
    with connect(uri, listeners=[by_explain]) as conn:
        found = explain_cluster(conn)
    status_states = Counter(c.explained.state for c in view.report.collections if c.explained)
    explain_states = Counter(c.state for c in found.collections)
    return by_status.sent, by_explain.sent, status_states, explain_states


def _names(sent: Counter[Command]) -> Counter[str]:
    return Counter(name for (_, name, _), n in sent.items() for _ in range(n))


def test_status_and_explain_send_the_same_commands_at_20_and_at_2000_collections(
    sandbox_server: Any,
) -> None:
    small_status, small_explain, small_states, explained = _sent(
        _cluster(sandbox_server, 20).handle.uri
    )
    large_status, large_explain, large_states, _ = _sent(_cluster(sandbox_server, 2000).handle.uri)
    assert small_states == explained == {"moving": 10, "balanced": 10}
    assert large_states == {"moving": 1000, "balanced": 1000}
    assert large_status == small_status
    assert large_explain == small_explain
    assert not any(name == "balancerCollectionStatus" for _, name, _ in small_status)
    # One read of the facts: status's commands are explain's, and only these differ.
    assert small_status - small_explain == {
        ("zonectl", "find", "locks"): 1,
        ("zonectl", "find", "journal"): 1,
    }
    assert small_explain - small_status == {("config", "aggregate", "chunks"): 1}
    print(
        f"commands at 20 and 2,000 collections: status {sum(small_status.values())} "
        f"{dict(sorted(_names(small_status).items()))}, explain {sum(small_explain.values())} "
        f"{dict(sorted(_names(small_explain).items()))}"
    )
