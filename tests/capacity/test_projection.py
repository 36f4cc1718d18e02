"""The projection (zonectl/capacity/) on plain values: what each route brings to which shard,
stored compressed less the free space it reuses, against each shard's limit; a donor gains
nothing; a shard already past its limit is blocked only by what adds to it."""

from __future__ import annotations

import datetime as dt

from bson import MaxKey, MinKey

from zonectl.capacity.loads import database_to_read, make_loads
from zonectl.capacity.project import project
from zonectl.capacity.text import capacity_lines
from zonectl.model.capacity import DiskLimit, ShardVolume
from zonectl.model.cluster import ClusterState, LiveCollection, LiveRange, LiveShard
from zonectl.model.desired import DesiredState
from zonectl.model.shard_lifecycle import DrainCollection, ShardDrain, ShardSpec
from zonectl.plan.ops import AssignZoneRange, Impact, MoveCollection, ReshardCollection
from zonectl.plan.plan import Plan
from zonectl.plan.serialize import dump_plan, load_plan
from zonectl.plan.shard_ops import RemoveShard

GIB = 1 << 30
AT = dt.datetime(2026, 1, 10, tzinfo=dt.UTC)
LO, HI = {"x": MinKey()}, {"x": MaxKey()}


def _state(volumes: dict[str, ShardVolume] | None, **more: object) -> ClusterState:
    shards = (
        LiveShard("s0", "rs0/h0:1", ("cold",)),
        LiveShard("s1", "rs1/h1:1", ("hot",)),
        LiveShard("s2", "rs2/h2:1", ("hot",)),
    )
    coll = LiveCollection("app.events", {"x": 1})
    return ClusterState(
        "8.0.4", shards=shards, collections={"app.events": coll}, volumes=volumes, **more
    )  # type: ignore[arg-type]


def _volume(shard: str, used: int, total: int = 20 * GIB, free: int = 0) -> ShardVolume:
    # compression 0.5, indexes 0.1 of the data: 0.6 bytes on disk per byte moved
    return ShardVolume(shard, used, total, 5 * GIB, 1 * GIB, free, 10 * GIB)


def _plan(*ops: object) -> Plan:
    return Plan(tuple(ops), AT, "", "")  # type: ignore[arg-type]


def _hot(nbytes: int) -> AssignZoneRange:
    return AssignZoneRange("app.events", "hot", LO, HI, Impact(10, 10, nbytes))


def test_a_range_spreads_over_its_zone_and_blocks_the_shard_it_fills() -> None:
    volumes = {"s0": _volume("s0", 2 * GIB), "s1": _volume("s1", 14 * GIB),
               "s2": _volume("s2", 1 * GIB, 200 * GIB)}  # fmt: skip
    actual, plan = _state(volumes), _plan(_hot(20 * GIB))
    loads = make_loads(plan, actual, DesiredState())
    assert sorted(loads) == ["s1", "s2"]  # the donor s0 gains nothing
    assert loads["s1"]["ranges"].incoming == 10 * GIB
    assert database_to_read(loads) == "app"
    report, notices = project(loads, actual, DesiredState(), "app")
    assert notices == [] and report is not None
    by = {s.shard: s for s in report.shards}
    assert by["s1"].projected_bytes == 20 * GIB  # 14 + 10 x 0.6
    assert by["s1"].limit_bytes == int(20 * GIB * 0.85)
    assert [s.shard for s in report.blocked] == ["s1"]
    assert by["s0"].projected_bytes == by["s0"].used_bytes == 2 * GIB
    ((line, details),) = capacity_lines(report)
    assert line == (
        "BLOCKED shard s1: volume 20.0 GiB, 14.0 GiB used (70.0%); after this plan 20.0 GiB "
        "(100.0%), past its limit 85% (17.0 GiB)"
    )
    assert details[0] == (
        "route zone ranges (apply --migrate or the balancer): +6.0 GiB on disk "
        "(10.0 GiB of app.events)"
    )
    assert details[-1].startswith("ways out: another shard")


def test_reusable_free_space_is_filled_first() -> None:
    volumes = {s: _volume(s, 14 * GIB, free=4 * GIB) for s in ("s0", "s1", "s2")}
    actual = _state(volumes)
    loads = make_loads(_plan(_hot(8 * GIB)), actual, DesiredState())
    report, _ = project(loads, actual, DesiredState(), "app")
    assert report is not None
    s1 = next(s for s in report.shards if s.shard == "s1")
    # 4 GiB arriving, 2.4 GiB stored, all of it inside the free blocks
    assert (s1.reused_bytes, s1.added_bytes, s1.blocked) == (int(2.4 * GIB) + 1, 0, False)


def test_the_policy_limit_of_the_cluster_and_of_one_shard() -> None:
    volumes = {s: _volume(s, 14 * GIB) for s in ("s0", "s1", "s2")}
    actual = _state(volumes)
    loads = make_loads(_plan(_hot(4 * GIB)), actual, DesiredState())  # +1.2 GiB each: 76 %
    loose = DesiredState(disk_limit=DiskLimit(0.9, "90%"))
    report, _ = project(loads, actual, loose, "app")
    assert report is not None and report.blocked == ()
    tight = DesiredState(disk_limit=DiskLimit(0.9, "90%"),
                         shard_disk_limits={"s2": DiskLimit(0.75, "75%")})  # fmt: skip
    report, _ = project(loads, actual, tight, "app")
    assert report is not None
    assert [(s.shard, s.limit_text) for s in report.blocked] == [("s2", "75%")]


def test_a_shard_past_its_limit_before_is_said_and_blocks_only_what_adds_to_it() -> None:
    volumes = {"s0": _volume("s0", 19 * GIB), "s1": _volume("s1", 1 * GIB),
               "s2": _volume("s2", 1 * GIB)}  # fmt: skip
    actual = _state(volumes)
    loads = make_loads(_plan(_hot(2 * GIB)), actual, DesiredState())
    report, _ = project(loads, actual, DesiredState(), "app")
    assert report is not None and report.blocked == ()
    assert [s.shard for s in report.over_before] == ["s0"]
    assert capacity_lines(report) == [
        ("shard s0 is past its limit 85% before this plan: volume 20.0 GiB, 19.0 GiB used "
         "(95.0%); this plan adds nothing to it", [])
    ]  # fmt: skip
    to_s0 = AssignZoneRange("app.events", "cold", LO, HI, Impact(1, 1, GIB))
    loads = make_loads(_plan(to_s0), actual, DesiredState())
    report, _ = project(loads, actual, DesiredState(), "app")
    assert report is not None and [s.shard for s in report.blocked] == ["s0"]


def test_a_resharding_needs_twice_the_collection_over_the_shards() -> None:
    volumes = {s: _volume(s, 10 * GIB) for s in ("s0", "s1", "s2")}
    actual = _state(volumes)
    op = ReshardCollection("app.events", {"x": 1}, {"x": 1}, impact=Impact(1, 1, 30 * GIB))
    loads = make_loads(_plan(op), actual, DesiredState())
    assert {s: r["reshard"].incoming for s, r in loads.items()} == {
        "s0": 20 * GIB, "s1": 20 * GIB, "s2": 20 * GIB}  # fmt: skip
    report, _ = project(loads, actual, DesiredState(), "app")
    assert report is not None and len(report.blocked) == 3  # 10 + 12 GiB of 20 each


def test_a_drain_goes_to_the_shards_of_the_zones_its_ranges_use() -> None:
    volumes = {s: _volume(s, 10 * GIB) for s in ("s0", "s1", "s2")}
    drain = ShardDrain("s1", False, (DrainCollection("app.events", 5, 20 * GIB),))
    ranges = (LiveRange("app.events", "hot", LO, HI),)
    actual = _state(volumes, ranges=ranges, drains={"s1": drain})
    desired = DesiredState(shard_specs={"s1": ShardSpec("removed")})
    op = RemoveShard("s1", "start", "removeShard", drain)
    loads = make_loads(_plan(op), actual, desired)
    assert {s: r["drain"].incoming for s, r in loads.items()} == {"s2": 20 * GIB}
    report, _ = project(loads, actual, desired, "app")
    assert report is not None and [s.shard for s in report.blocked] == ["s2"]
    assert report.blocked[0].routes[0].sources == ("s1",)


def test_a_move_collection_lands_on_its_shard() -> None:
    actual = _state({s: _volume(s, 10 * GIB) for s in ("s0", "s1", "s2")})
    op = MoveCollection("shop.orders", "s0", "s1", "cold", Impact(1, 1, 12 * GIB))
    loads = make_loads(_plan(op), actual, DesiredState())
    assert database_to_read(loads) == "shop"
    report, _ = project(loads, actual, DesiredState(), "shop")
    assert report is not None and [s.shard for s in report.blocked] == ["s0"]


def test_no_volumes_or_no_filesystem_sizes_are_said_never_passed_silently() -> None:
    actual = _state(None, volumes_unread="is not allowed for this user (Unauthorized)")
    loads = make_loads(_plan(_hot(GIB)), actual, DesiredState())
    report, notices = project(loads, actual, DesiredState(), "app")
    assert report is None
    assert notices == [
        "disk capacity not checked: dbStats on app is not allowed for this user "
        "(Unauthorized); this plan is made without the disk guard"
    ]
    actual = _state({"s0": _volume("s0", GIB), "s1": ShardVolume("s1", None, None),
                     "s2": _volume("s2", GIB)})  # fmt: skip
    report, notices = project(loads, actual, DesiredState(), "app")
    assert report is not None and [s.shard for s in report.shards] == ["s0", "s2"]
    assert notices == [
        "disk capacity of shard s1 not checked: it reports no filesystem sizes "
        "(fsUsedSize/fsTotalSize) in dbStats on app; it receives data in this plan"
    ]


def test_a_saved_plan_keeps_its_capacity_report() -> None:
    actual = _state({s: _volume(s, 14 * GIB) for s in ("s0", "s1", "s2")})
    plan = _plan(_hot(20 * GIB))
    report, _ = project(make_loads(plan, actual, DesiredState()), actual, DesiredState(), "app")
    saved = Plan(plan.ops, AT, "", "", capacity=report)
    assert load_plan(dump_plan(saved)).capacity == report


def test_a_resharding_to_zones_needs_room_on_the_zones_shards() -> None:
    volumes = {s: _volume(s, 1 * GIB) for s in ("s0", "s1", "s2")}
    actual = _state(volumes)
    zones = ({"zone": "hot", "min": LO, "max": HI},)
    op = ReshardCollection(
        "app.events", {"x": 1}, {"x": 1}, zones, True, impact=Impact(1, 1, 30 * GIB)
    )
    loads = make_loads(_plan(op), actual, DesiredState())
    assert {s: r["reshard"].incoming for s, r in loads.items()} == {
        "s1": 30 * GIB, "s2": 30 * GIB}  # fmt: skip
