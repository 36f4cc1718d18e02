"""The mongo layer against a sandbox over TCP: live state as the planner needs it, and
impact counts from targeted chunk queries equal to counting every chunk."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.model.desired import CollectionPolicy, DesiredState, ZoneRange
from zonectl.mongo import connect, read_cluster_state
from zonectl.mongo.chunk_batch import ChunkBatch
from zonectl.mongo.impact import read_impact_chunks
from zonectl.plan.impact import default_chunk_bytes, estimate_impact, zone_shards_after
from zonectl.plan.ops import AssignZoneRange
from zonectl.plan.plan import Plan
from zonectl.sandbox.uri import build_sandbox, parse
from zonectl.session.plan import build_plan

CLUSTER = Path(__file__).resolve().parent / "fixtures" / "cluster.yaml"
AT = dt.datetime(2026, 1, 10, tzinfo=dt.UTC)


def served(sandbox_server: Any, version: str = "7.0") -> Any:
    return sandbox_server(sandbox=build_sandbox(parse(f"sandbox:{CLUSTER}?version={version}")))


def planned(uri: str, desired: DesiredState) -> Plan:
    """The plan of `desired` at AT, on a connection of its own."""
    with connect(uri) as conn:
        return build_plan(conn, desired, {}, AT, None)


def matching() -> DesiredState:
    audit = CollectionPolicy("app.audit", key={"_id": 1}, pin="archive")
    return DesiredState(
        shards={"shard-std-0": frozenset({"archive"})}, collections={"app.audit": audit}
    )


def test_live_state_reads_shards_zones_ranges_keys_and_balancer(
    sandbox_server: Any, server_version: str
) -> None:
    sb = served(sandbox_server, server_version)
    with connect(sb.uri) as conn:
        state = read_cluster_state(conn, ["app.audit", "app.users", "app.none"])
    assert state.version.startswith(server_version)
    assert [(s.id, s.zones) for s in state.shards] == [
        ("shard-fast-0", ("hot",)),
        ("shard-std-0", ("archive",)),
        ("shard-std-1", ("legacy",)),
    ]
    assert sorted(state.collections) == ["app.audit", "app.users"]
    assert state.collections["app.users"].key == {"country": 1, "userId": 1}
    (r,) = state.ranges
    assert (r.namespace, r.zone, r.min, r.max) == (
        "app.audit",
        "archive",
        {"_id": MinKey()},
        {"_id": MaxKey()},
    )
    assert state.balancer.enabled


def test_plan_is_empty_when_the_desired_state_matches_the_sandbox(sandbox_server: Any) -> None:
    sb = served(sandbox_server)
    plan = planned(sb.uri, matching())
    assert plan.ops == ()


def test_planning_changes_nothing_on_the_cluster(sandbox_server: Any) -> None:
    sb = served(sandbox_server)
    desired = DesiredState(
        shards={"shard-fast-0": frozenset({"eu"})},
        collections={
            "app.users": CollectionPolicy(
                "app.users", ranges=(ZoneRange("eu", {"country": "DE"}, {"country": "FR"}),)
            )
        },
    )
    before = list(sb.client.config.tags.find({}, {"_id": 0})), list(sb.client.config.shards.find())
    plan = planned(sb.uri, desired)
    assert len(plan.ops) == 2
    after = list(sb.client.config.tags.find({}, {"_id": 0})), list(sb.client.config.shards.find())
    assert before == after


def test_targeted_impact_equals_counting_every_chunk(
    sandbox_server: Any, server_version: str
) -> None:
    sb = served(sandbox_server, server_version)
    desired = DesiredState(
        shards={"shard-fast-0": frozenset({"hot"})},
        collections={
            "app.audit": CollectionPolicy(
                "app.audit",
                ranges=(
                    ZoneRange("archive", {"_id": MinKey()}, {"_id": 550}),
                    ZoneRange("hot", {"_id": 550}, {"_id": 1234}),
                    ZoneRange("archive", {"_id": 1234}, {"_id": MaxKey()}),
                ),
            )
        },
    )
    plan = planned(sb.uri, desired)
    with connect(sb.uri) as conn:
        actual = read_cluster_state(conn, ["app.audit"])
        targeted, _ = read_impact_chunks(ChunkBatch(conn), actual, plan)
        every = list(sb.client.config.chunks.find({"uuid": actual.collections["app.audit"].uuid}))
    zones = zone_shards_after(plan, actual)

    def measured(lo: Any, hi: Any, shard: str, share: float) -> int:
        # The one size source: dataSize of the part that migrates, where the server answers.
        reply = sb.client.admin.command(
            {"dataSize": "app.audit", "keyPattern": {"_id": 1}, "min": lo, "max": hi,
             "estimate": True}
        )  # fmt: skip
        return int(reply["size"])

    for index, op in enumerate(plan.ops):
        if isinstance(op, AssignZoneRange):
            assert len(targeted[index]) < len(every)
            size = default_chunk_bytes(actual.version)
            change = op.range_change()
            assert op.impact == estimate_impact(change, every, zones[op.zone], size, measured)
    hot = next(op for op in plan.ops if isinstance(op, AssignZoneRange) and op.zone == "hot")
    assert hot.impact is not None and hot.impact.chunks == 8 and hot.impact.migrating == 8


def test_a_tracked_unsharded_collection_on_8_0_is_not_read_as_sharded(
    sandbox_server: Any,
) -> None:
    # 8.0 lists some unsharded collections in config.collections with `unsplittable: true`
    # (reference §2.4); they have no shard key a plan could pad bounds with.
    sb = served(sandbox_server, "8.0")
    sb.client.config.collections.insert_one(
        {"_id": "app.tracked", "key": {"_id": 1}, "unsplittable": True, "noBalance": False}
    )
    with connect(sb.uri) as conn:
        state = read_cluster_state(conn, ["app.audit", "app.tracked"])
    tracked = CollectionPolicy(
        "app.tracked",
        ranges=(ZoneRange("archive", {"_id": 0}, {"_id": 10}),),
    )
    desired = DesiredState(
        shards={"shard-std-0": frozenset({"archive"})}, collections={"app.tracked": tracked}
    )
    plan = planned(sb.uri, desired)
    assert sorted(state.collections) == ["app.audit"]
    assert any("app.tracked is not sharded" in w for w in plan.warnings)
