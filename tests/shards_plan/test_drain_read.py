"""The drain read (zonectl/mongo/drain_read.py) with real pymongo over TCP: nothing is sent
when no shard is removed or draining, and the commands it sends do not grow with the
number of collections on the shard."""

from __future__ import annotations

from typing import Any

from pymongo import MongoClient
from wire_count import Sent

from zonectl.model.desired import DesiredState
from zonectl.model.shard_lifecycle import ShardSpec
from zonectl.mongo.connect import Connection
from zonectl.mongo.drain_read import with_drain_facts
from zonectl.mongo.state import read_config_documents


def _cluster(collections: int) -> str:
    lines = [
        "shards:",
        "  - {name: s0}",
        "  - {name: s1}",
        "databases:",
        "  - {name: app, primary: s1}",
        "collections:",
    ]
    for i in range(collections):
        lines.append(f"  - {{ns: app.c{i}, key: {{x: 1}}, chunks: 3, distribution: round-robin}}")
    lines += ["unsharded:", "  - {ns: app.loose}"]
    return "\n".join(lines) + "\n"


def _read(sb: Any, removed: frozenset[str]) -> tuple[list[str], Any]:
    listener = Sent()
    client: MongoClient[dict[str, Any]] = MongoClient(sb.uri, event_listeners=[listener])
    try:
        version = str(client.admin.command("buildInfo")["version"])
        conn = Connection(client, "sandbox", version, None)
        actual = read_config_documents(conn, ()).cluster_state(conn)
        desired = DesiredState(shard_specs={s: ShardSpec("removed") for s in removed})
        listener.clear()
        actual = with_drain_facts(conn, desired, actual)
        return list(listener.order), actual
    finally:
        client.close()


def test_nothing_is_read_when_no_shard_leaves(served: Any) -> None:
    sb = served("8.0", _cluster(2))
    names, actual = _read(sb, frozenset())
    assert names == [] and actual.drains == {}


def test_a_removed_shard_the_cluster_lacks_costs_one_changelog_find(served: Any) -> None:
    sb = served("8.0", _cluster(2))
    names, actual = _read(sb, frozenset({"s9", "s8"}))
    assert names == ["find"] and actual.drains == {}
    assert actual.removed_before == {"s8": None, "s9": None}  # no removal on record


def test_the_round_trips_do_not_grow_with_the_collections(served: Any) -> None:
    small = served("8.0", _cluster(2))
    few, actual = _read(small, frozenset({"s1"}))
    drain = actual.drains["s1"]
    assert [c.namespace for c in drain.collections][:2] == ["app.c0", "app.c1"]
    assert drain.unsharded == ("app.loose",) and drain.databases == ("app",)
    large = served("8.0", _cluster(12))
    many, actual = _read(large, frozenset({"s1"}))
    assert len(actual.drains["s1"].collections) >= 12
    assert many == few
    assert len(few) <= 8, few
