"""`zonectl status` end to end: clusters built with real admin commands over pymongo, the
CLI reading them through pymongo over TCP, counts checked against a hand-made layout."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey
from builders import (
    add_range,
    add_shards,
    namespace,
    set_balancing,
    shard_collection,
    status_json,
    zonectl,
)

from zonectl.mongo.journal import MongoJournal
from zonectl.mongo.lease import MongoLease

NS = "app.t"


def build_layout(client: Any) -> None:
    """Chunks [Min,10) [10,20) [20,30) [30,40) [40,50) [50,Max) on s2 s0 s1 s1 s1 s2;
    hot = [10,30) on s0, cold = [35,50) on s1:
    [10,20) complies, [20,30) is outside hot, [30,40) straddles 35, [40,50) complies."""
    add_shards(client, {"s0": ["hot"], "s1": ["cold"], "s2": []})
    shard_collection(
        client,
        NS,
        {"x": 1},
        splits=[{"x": 10}, {"x": 20}, {"x": 30}, {"x": 40}, {"x": 50}],
        owners={0: "s2", 1: "s0", 2: "s1", 3: "s1", 4: "s1", 5: "s2"},
    )
    add_range(client, NS, "hot", {"x": 10}, {"x": 30})
    add_range(client, NS, "cold", {"x": 35}, {"x": 50})


def test_status_counts_chunks_outside_their_zone_and_straddling_a_boundary(
    sandbox_server: Any, server_version: str
) -> None:
    sb = sandbox_server(server_version)
    build_layout(sb.client)
    doc = status_json(sb.uri)
    t = namespace(doc, NS)
    assert t["chunks"] == 6
    assert t["distribution"] == {"s0": 1, "s1": 3, "s2": 2}
    assert t["compliance"]["chunksOutsideZone"] == 1
    assert t["compliance"]["chunksStraddlingBoundary"] == 1
    assert t["compliance"]["firstOutsideZone"] == {
        "min": {"x": 20},
        "max": {"x": 30},
        "shard": "s1",
        "zone": "hot",
    }
    assert t["compliance"]["firstStraddling"]["min"] == {"x": 30}
    assert t["compliance"]["compliant"] is False
    assert doc["compliant"] is False
    # The server's view: a straddling chunk is a zone violation (reference §3.3).
    assert t["balancerCollectionStatus"]["balancerCompliant"] is False
    assert t["balancerCollectionStatus"]["firstComplianceViolation"] == "zoneViolation"


def test_status_lists_shards_zones_ranges_key_and_balancing(sandbox_server: Any) -> None:
    sb = sandbox_server()
    build_layout(sb.client)
    set_balancing(sb.client, NS, False)
    doc = status_json(sb.uri)
    assert doc["format_version"] == 1
    assert [(s["id"], s["zones"], s["chunks"]) for s in doc["shards"]] == [
        ("s0", ["hot"], 1),
        ("s1", ["cold"], 3),
        ("s2", [], 2),
    ]
    t = namespace(doc, NS)
    assert t["key"] == {"x": 1}
    assert t["balancing"] is False
    assert t["ranges"] == [
        {"zone": "hot", "min": {"x": 10}, "max": {"x": 30}},
        {"zone": "cold", "min": {"x": 35}, "max": {"x": 50}},
    ]
    assert doc["balancer"]["mode"] == "full"
    assert doc["balancer"]["inBalancerRound"] is False
    assert doc["lease"] is None
    assert doc["unfinishedApplies"] == []


def test_status_is_compliant_when_every_chunk_sits_in_its_zone(sandbox_server: Any) -> None:
    sb = sandbox_server()
    add_shards(sb.client, {"s0": ["hot"], "s1": []})
    shard_collection(sb.client, NS, {"x": 1}, splits=[{"x": 0}], owners={0: "s1", 1: "s0"})
    add_range(sb.client, NS, "hot", {"x": 0}, {"x": MaxKey()})
    doc = status_json(sb.uri)
    t = namespace(doc, NS)
    assert t["compliance"]["compliant"] is True
    assert t["compliance"]["chunksOutsideZone"] == 0
    assert doc["compliant"] is True
    code, out, _ = zonectl("status", "--uri", sb.uri)
    assert code == 0
    assert "all scanned namespaces comply with their zones" in out


def test_status_walks_compound_date_keys_in_bson_order(sandbox_server: Any) -> None:
    sb = sandbox_server()
    add_shards(sb.client, {"fast": ["hot"], "slow": ["archive"]})
    day = [dt.datetime(2026, 1, d, tzinfo=dt.UTC) for d in range(1, 6)]
    splits = [{"ts": d, "_id": MinKey()} for d in day]
    owners = {i: "slow" for i in range(6)}
    owners[2] = owners[5] = "fast"
    shard_collection(sb.client, "app.events", {"ts": 1, "_id": 1}, splits, owners)
    boundary = {"ts": day[3], "_id": MinKey()}
    add_range(sb.client, "app.events", "archive", {"ts": MinKey(), "_id": MinKey()}, boundary)
    add_range(sb.client, "app.events", "hot", boundary, {"ts": MaxKey(), "_id": MaxKey()})
    t = namespace(status_json(sb.uri), "app.events")
    # Chunk 2 [Jan 2, Jan 3) is archive on fast; chunk 4 [Jan 4, Jan 5) is hot on slow.
    assert t["compliance"]["chunksOutsideZone"] == 2
    assert t["compliance"]["chunksStraddlingBoundary"] == 0
    assert t["compliance"]["firstOutsideZone"]["min"] == {
        "ts": {"$date": "2026-01-02T00:00:00Z"},
        "_id": {"$minKey": 1},
    }


def test_status_text_shows_compliance_server_view_and_distribution_bars(
    sandbox_server: Any,
) -> None:
    sb = sandbox_server()
    build_layout(sb.client)
    code, out, err = zonectl("status", "--uri", sb.uri)
    assert code == 0, err
    assert "app.t  key { x: 1 }  balancing on  6 chunks" in out
    assert "1 chunk outside their zone, 1 straddling a zone boundary" in out
    assert "first outside: [{ x: 20 }, { x: 30 }) on s1, belongs to zone hot" in out
    assert "balancerCollectionStatus: not compliant (zoneViolation)" in out
    bars = [line.split() for line in out.splitlines() if "#" in line and line.startswith("  s")]
    assert [b[0] for b in bars] == ["s0", "s1", "s2"]
    assert bars[1][1] == "#" * 24  # the fullest shard fills the bar
    assert bars[1][2:] == ["3", "50%"]
    assert "1 namespace not compliant: app.t" in out


def test_status_namespace_option_scans_only_those_and_refuses_unknown_ones(
    sandbox_server: Any,
) -> None:
    sb = sandbox_server()
    build_layout(sb.client)
    shard_collection(sb.client, "app.other", {"y": 1})
    sb.client.app.plain.insert_one({"x": 1})
    code, out, err = zonectl(
        "status", "--uri", sb.uri, "-n", "app.other", "-n", "app.plain", "--format", "json"
    )
    assert code == 0

    doc = json.loads(out)
    assert [n["namespace"] for n in doc["namespaces"]] == ["app.other"]
    assert sum(s["chunks"] for s in doc["shards"]) == 1
    # on the cluster but unsharded: known, nothing to show, said so
    assert "app.plain: neither sharded nor given zone ranges" in err
    code, out, err = zonectl("status", "--uri", sb.uri, "-n", "app.other", "-n", "app.nope")
    assert (code, out) == (2, "")  # a typo is not "every scanned namespace complies"
    assert "--namespace app.nope: no such namespace on the cluster" in err


def test_status_shows_ranges_of_an_unsharded_namespace(sandbox_server: Any) -> None:
    sb = sandbox_server()
    add_shards(sb.client, {"s0": ["eu"]})
    add_range(sb.client, "app.future", "eu", {"c": "DE"}, {"c": "DF"})
    doc = status_json(sb.uri)
    future = namespace(doc, "app.future")
    assert future["sharded"] is False
    assert future["ranges"] == [{"zone": "eu", "min": {"c": "DE"}, "max": {"c": "DF"}}]
    assert future["chunks"] == 0


def test_status_shows_a_held_lease_and_an_unfinished_apply(sandbox_server: Any) -> None:
    sb = sandbox_server()
    build_layout(sb.client)
    now = dt.datetime.now(dt.UTC)
    lease = {
        "token": "t1",
        "owner": "cron@ops-3",
        "host": "ops-3",
        "pid": 4242,
        "operation": "apply",
        "plan_id": "3f2a",
        "acquired": now,
        "expires": now + dt.timedelta(minutes=10),
    }
    MongoLease(sb.client, "zonectl").acquire(lease, now=now, may_take=lambda _: False)
    journal = MongoJournal(sb.client, "zonectl")
    journal.open({"_id": "a1", "plan_id": "3f2a", "owner": "cron@ops-3", "state": "open",
                  "started": now, "ops": ["op one", "op two"]})  # fmt: skip
    journal.event("a1", {"type": "pause", "scope": "collection", "ns": NS, "prior": True})
    journal.event("a1", {"type": "step", "index": 0, "kind": "x", "op": "op one", "status": "done"})
    doc = status_json(sb.uri)
    assert doc["lease"]["expired"] is False
    assert doc["lease"]["holder"].startswith("cron@ops-3 (pid 4242, apply, plan 3f2a)")
    [apply] = doc["unfinishedApplies"]
    assert apply == {
        "applyId": "a1",
        "planId": "3f2a",
        "owner": "cron@ops-3",
        "started": apply["started"],
        "stepsDone": 1,
        "ops": 2,
        "unrestored": ["collection app.t"],
    }
    code, out, _ = zonectl("status", "--uri", sb.uri)
    assert code == 0
    assert "lease: held by cron@ops-3" in out
    assert "unfinished apply a1 (plan 3f2a, by cron@ops-3" in out
    assert "balancing not restored for collection app.t" in out


def test_status_of_an_unreachable_cluster_exits_1_with_one_line(tmp_path: Any) -> None:
    code, out, err = zonectl(
        "status", "--uri", "mongodb://u:hunter2@127.0.0.1:1/?serverSelectionTimeoutMS=200"
    )
    assert code == 1
    assert out == ""
    assert "zonectl: error:" in err
    assert "hunter2" not in err


def test_status_shows_bytes_per_shard_where_the_server_reports_data_distribution(
    sandbox_server: Any, server_version: str
) -> None:
    sb = sandbox_server(server_version)
    build_layout(sb.client)
    doc = status_json(sb.uri)
    bytes_by_shard = {s["id"]: s["bytes"] for s in doc["shards"]}
    if server_version == "5.0":  # $shardedDataDistribution is 6.0.3+
        assert set(bytes_by_shard.values()) == {None}
        assert any("$shardedDataDistribution" in note for note in doc["notes"])
    else:
        assert all(isinstance(b, int) and b >= 0 for b in bytes_by_shard.values())
