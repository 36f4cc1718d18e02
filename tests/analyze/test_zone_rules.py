"""Zone rules (ZA106-ZA111): each triggered on a cluster built for it (zone ranges added
over the wire after seeding, so chunks stay where the test put them) and silent on a
healthy one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bson import Int64

from tests.analyze.kit import SHARDS, analyze, collection, rules, serve_cluster

INTS = (
    SHARDS
    + """
collections:
  - ns: app.c
    key: {x: 1}
    chunks: 8
    keys: {type: int, start: 0, step: 1000}
    distribution: {dist}
    shard: s0
    jumbo: {jumbo}
"""
)


def _cluster(distribution: str = "all-on-one", jumbo: str = "[]") -> str:
    return INTS.replace("{dist}", distribution).replace("{jumbo}", jumbo)


def _zone(handle: Any, lo: int, hi: int, zone: str) -> None:
    handle.client.admin.command(
        "updateZoneKeyRange", "app.c", min={"x": Int64(lo)}, max={"x": Int64(hi)}, zone=zone
    )


def test_a_jumbo_chunk_outside_its_zone_is_an_error(sandbox_server: Any, tmp_path: Path) -> None:
    # chunk 2 is [2000, 3000) on s0; zone b lives on s2 only
    handle = serve_cluster(sandbox_server, _cluster(jumbo="[2]"))
    _zone(handle, 2000, 3000, "b")
    _, report, _ = analyze(handle.uri, tmp_path)
    finding = next(f for f in collection(report, "app.c")["findings"] if f["rule"] == "ZA106")
    assert "zone b" in finding["evidence"] and "s0" in finding["evidence"]


def test_a_jumbo_chunk_inside_its_zone_raises_nothing(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_cluster(sandbox_server, _cluster(jumbo="[2]"))
    _zone(handle, 2000, 3000, "a")  # s0 carries zone a
    _, report, _ = analyze(handle.uri, tmp_path)
    assert not rules(report, "app.c") & {"ZA106", "ZA107"}


def test_a_jumbo_chunk_across_a_zone_bound_is_an_error(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_cluster(sandbox_server, _cluster(jumbo="[2]"))
    _zone(handle, 2500, 5000, "a")
    _, report, _ = analyze(handle.uri, tmp_path)
    finding = next(f for f in collection(report, "app.c")["findings"] if f["rule"] == "ZA107")
    assert "2500" in finding["fix"]


def test_a_zone_only_on_a_draining_shard_is_an_error(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_cluster(sandbox_server, _cluster(distribution="round-robin"))
    # removeShard refuses to drain the only shard of a zone that has ranges (ZoneStillInUse),
    # but a range added to the zone while its shard drains is accepted.
    handle.client.admin.command("removeShard", "s2")
    _zone(handle, 0, 4000, "b")
    _, report, _ = analyze(handle.uri, tmp_path)
    finding = next(f for f in report["findings"] if f["rule"] == "ZA108")
    assert "zone b" in finding["evidence"] and finding["severity"] == "error"


def test_a_zone_with_a_live_shard_raises_no_draining_error(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, _cluster(distribution="round-robin"))
    _zone(handle, 0, 4000, "a")
    handle.client.admin.command("removeShard", "s1")  # s0 still carries zone a
    _, report, _ = analyze(handle.uri, tmp_path)
    assert "ZA108" not in rules(report)


def test_all_of_a_zones_data_on_one_of_its_shards_warns(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, _cluster())  # all 8 chunks on s0
    _zone(handle, 0, 8000, "a")  # zone a: s0 and s1
    _, report, _ = analyze(handle.uri, tmp_path)
    finding = next(f for f in collection(report, "app.c")["findings"] if f["rule"] == "ZA110")
    assert "s0 holds 100%" in finding["evidence"]


def test_a_zone_spread_evenly_raises_no_balance_warning(
    sandbox_server: Any, tmp_path: Path
) -> None:
    cluster = _cluster("by-weight").replace("    shard: s0\n", "    weights: {s0: 1, s1: 1}\n")
    handle = serve_cluster(sandbox_server, cluster)
    _zone(handle, 0, 8000, "a")
    _, report, _ = analyze(handle.uri, tmp_path)
    assert "ZA110" not in rules(report, "app.c")


POLICY = """
apiVersion: zonectl/v1
kind: ZonePolicy
shards: {s0: [a], s1: [a], s2: [b]}
collections:
  app.later:
    key: {x: 1}
    ranges:
      - {zone: a, min: {x: 0}, max: {x: 100}}
      - {zone: b, min: {x: 100}, max: {x: 200}}
"""


def test_ranges_on_a_namespace_not_sharded_yet_imply_a_presplit(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, _cluster())
    _, report, _ = analyze(handle.uri, tmp_path, POLICY)
    finding = next(f for f in collection(report, "app.later")["findings"] if f["rule"] == "ZA109")
    assert "4 initial chunks split at { x: 0 }, { x: 100 }, { x: 200 }" in finding["evidence"]
    assert "ZA109" not in rules(report, "app.c")


def test_ranges_on_a_sharded_namespace_imply_no_presplit(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, _cluster())
    _, report, _ = analyze(handle.uri, tmp_path, POLICY.replace("app.later", "app.c"))
    assert "ZA109" not in rules(report)


FIREHOSE = """
apiVersion: zonectl/v1
kind: ZonePolicy
shards: {s0: [a], s1: [a], s2: [b]}
collections:
  app.ev:
    key: {ts: 1}
    firehose: {field: ts, type: date, schedule: "0 0 * * *", keep: 1, hot: b, cold: a}
"""
EVENTS = (
    SHARDS
    + """
collections:
  - ns: app.ev
    key: {ts: 1}
    chunks: 6
    keys: {type: date, start: "2020-01-01T00:00:00Z", step: 1d}
    distribution: {dist}
"""
)


def test_old_chunks_left_on_the_hot_shard_are_a_backlog(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, EVENTS.replace("{dist}", "all-on-one\n    shard: s2"))
    _, report, _ = analyze(handle.uri, tmp_path, FIREHOSE)
    coll = collection(report, "app.ev")
    finding = next(f for f in coll["findings"] if f["rule"] == "ZA111")
    assert finding["evidence"].startswith("5 chunks older than the window boundary")
    share = next(f for f in coll["figures"] if f["name"] == "hot shard share of inserts")
    assert share["value"].startswith("100%")


def test_old_chunks_on_cold_shards_are_no_backlog(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_cluster(sandbox_server, EVENTS.replace("{dist}", "all-on-one\n    shard: s0"))
    _, report, _ = analyze(handle.uri, tmp_path, FIREHOSE)
    assert "ZA111" not in rules(report, "app.ev")


def test_ranges_on_an_unsharded_collection_warn_but_a_pin_alone_does_not(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, _cluster())
    handle.client.app.plain.insert_one({"x": 1})
    ranged = POLICY.replace("app.later", "app.plain")
    _, report, _ = analyze(handle.uri, tmp_path, ranged)
    finding = next(f for f in collection(report, "app.plain")["findings"] if f["rule"] == "ZA109")
    assert "app.plain is not sharded" in finding["evidence"]
    pinned = POLICY.split("    ranges:")[0].replace("app.later", "app.plain") + "    pin: a\n"
    _, report, _ = analyze(handle.uri, tmp_path, pinned)
    assert "ZA109" not in rules(report, "app.plain")
