"""make_plan on plain values: each kind of change, ownership, plan-time errors."""

from __future__ import annotations

import dataclasses

import pytest
from bson import Int64
from plan_builders import AT, MAX, MIN, cluster, country, live, policy, users, want

from zonectl.errors import PlanError
from zonectl.model.cluster import LiveBalancer, LiveCollection
from zonectl.model.desired import BalancerPolicy, CollectionPolicy, Firehose
from zonectl.plan.ops import (
    AddShardToZone,
    AssignZoneRange,
    RefineShardKey,
    ReshardCollection,
    SetBalancerEnabled,
    SetBalancerWindow,
    SetCollectionBalancing,
)
from zonectl.plan.planner import make_plan

U = "app.users"
EU = {"shard-std-0": ("eu",)}


def test_policy_matching_the_cluster_plans_nothing() -> None:
    actual = cluster(zones=EU, ranges=[live(U, "eu", country("DE"), country("DF"))])
    desired = policy(
        {"shard-std-0": {"eu"}}, u=users(want("eu", {"country": "DE"}, {"country": "DF"}))
    )
    plan = make_plan(desired, actual, boundaries={}, at=AT)
    assert plan.ops == ()
    assert not plan.has_changes


def test_short_bounds_are_padded_with_minkey_before_comparing() -> None:
    actual = cluster(zones=EU, ranges=[live(U, "eu", country("DE"), country("DF"))])
    desired = policy(
        {"shard-std-0": {"eu"}}, u=users(want("eu", {"country": "DE"}, {"country": "DF"}))
    )
    assert make_plan(desired, actual, boundaries={}, at=AT).ops == ()


def test_numeric_bounds_compare_by_value_across_types() -> None:
    actual = cluster(
        zones=EU,
        ranges=[live(U, "eu", {"country": 1, "userId": MIN}, {"country": 2, "userId": MIN})],
    )
    desired = policy(
        {"shard-std-0": {"eu"}}, u=users(want("eu", {"country": Int64(1)}, {"country": 2.0}))
    )
    assert make_plan(desired, actual, boundaries={}, at=AT).ops == ()


def test_live_range_not_in_policy_is_removed_with_its_exact_stored_bounds() -> None:
    stored_min = {"country": Int64(1), "userId": MIN}
    actual = cluster(zones=EU, ranges=[live(U, "eu", stored_min, {"country": 2, "userId": MIN})])
    plan = make_plan(policy({"shard-std-0": {"eu"}}, u=users()), actual, boundaries={}, at=AT)
    (op,) = plan.ops
    assert type(op.min["country"]) is Int64  # type: ignore[attr-defined]
    assert op.command()["zone"] is None


def test_membership_removed_when_policy_drops_a_shard_from_a_managed_zone() -> None:
    actual = cluster(zones={"shard-std-0": ("eu",), "shard-std-1": ("eu",)})
    plan = make_plan(policy({"shard-std-0": {"eu"}}), actual, boundaries={}, at=AT)
    assert [op.describe() for op in plan.ops] == ["remove shard shard-std-1 from zone eu"]


def test_unmanaged_zones_and_namespaces_are_reported_and_untouched() -> None:
    actual = cluster(
        zones={"shard-std-0": ("eu",), "shard-std-1": ("legacy",)},
        ranges=[live("app.old", "legacy", {"a": 1}, {"a": 2})],
        collections={U: {"country": 1, "userId": 1}, "app.old": {"a": 1}},
    )
    plan = make_plan(policy({"shard-std-0": {"eu"}}, u=users()), actual, boundaries={}, at=AT)
    assert plan.ops == ()
    assert [(u.kind, u.name) for u in plan.unmanaged] == [
        ("zone", "legacy"),
        ("namespace", "app.old"),
    ]


def test_firehose_window_splits_the_key_at_the_boundary() -> None:
    import datetime as dt

    b = dt.datetime(2026, 1, 10, tzinfo=dt.UTC)
    fh = Firehose("ts", "date", "0 0 * * *", "UTC", 1, hot="hot", cold="archive")
    desired = policy(
        {"shard-fast-0": {"hot"}, "shard-std-0": {"archive"}},
        e=CollectionPolicy("app.events", key={"ts": 1, "_id": 1}, firehose=fh),
    )
    actual = cluster(
        zones={"shard-fast-0": ("hot",), "shard-std-0": ("archive",)},
        collections={"app.events": {"ts": 1, "_id": 1}},
    )
    ops = make_plan(desired, actual, boundaries={"app.events": b}, at=AT).ops
    split = {"ts": b, "_id": MIN}
    assert ops == (
        AssignZoneRange("app.events", "archive", {"ts": MIN, "_id": MIN}, split),
        AssignZoneRange("app.events", "hot", split, {"ts": MAX, "_id": MAX}),
    )


def test_collection_balancing_switch_records_its_previous_value() -> None:
    actual = cluster()
    actual = dataclasses.replace(
        actual, collections={U: LiveCollection(U, {"country": 1, "userId": 1}, no_balance=True)}
    )
    plan = make_plan(policy(u=users(balancing=True)), actual, boundaries={}, at=AT)
    assert plan.ops == (SetCollectionBalancing(U, True, False),)


def test_balancer_not_in_policy_is_left_alone() -> None:
    actual = cluster(balancer=LiveBalancer(mode="off", stopped=True))
    assert make_plan(policy(), actual, boundaries={}, at=AT).ops == ()


def test_balancer_window_removed_when_policy_manages_it_as_none() -> None:
    actual = cluster(balancer=LiveBalancer(active_window={"start": "01:00", "stop": "02:00"}))
    desired = dataclasses.replace(policy(), balancer=BalancerPolicy(manage_window=True))
    assert make_plan(desired, actual, boundaries={}, at=AT).ops == (
        SetBalancerWindow(None, None, ("01:00", "02:00")),
    )


def test_balancer_enabled_switch() -> None:
    desired = dataclasses.replace(policy(), balancer=BalancerPolicy(enabled=False))
    assert make_plan(desired, cluster(), boundaries={}, at=AT).ops == (
        SetBalancerEnabled(False, True),
    )


def test_namespace_filter_keeps_its_ops_and_the_memberships_they_need() -> None:
    desired = policy(
        {"shard-std-0": {"eu"}, "shard-std-1": {"us"}},
        u=users(want("eu", country("DE"), country("DF"))),
        o=CollectionPolicy("app.other", key={"x": 1}, pin="us"),
    )
    actual = cluster(collections={U: {"country": 1, "userId": 1}, "app.other": {"x": 1}})
    plan = make_plan(desired, actual, boundaries={}, at=AT, namespaces=[U])
    assert [type(op) for op in plan.ops] == [AddShardToZone, AssignZoneRange]
    assert plan.namespaces == (U,)


def test_unsharded_namespace_ranges_are_planned_with_a_warning() -> None:
    desired = policy({"shard-std-0": {"eu"}}, n=CollectionPolicy("app.new", key={"k": 1}, pin="eu"))
    plan = make_plan(desired, cluster(zones=EU), boundaries={}, at=AT)
    assert plan.ops == (AssignZoneRange("app.new", "eu", {"k": MIN}, {"k": MAX}),)
    assert "app.new is not sharded" in plan.warnings[0]


def test_fingerprint_changes_with_live_metadata_not_with_tag_order() -> None:
    a = cluster(zones={"shard-std-0": ("eu", "us")})
    b = cluster(zones={"shard-std-0": ("us", "eu")})
    c = cluster(zones={"shard-std-0": ("eu",)})
    fp = [make_plan(policy(), s, boundaries={}, at=AT).fingerprint for s in (a, b, c)]
    assert fp[0] == fp[1] != fp[2]


# --- plan-time errors -------------------------------------------------------------------


def plan_error(desired: object, actual: object, **kw: object) -> str:
    with pytest.raises(PlanError) as info:
        make_plan(desired, actual, boundaries=kw.get("boundaries", {}), at=AT)  # type: ignore[arg-type]
    return info.value.text


def test_unknown_shard_is_a_plan_error() -> None:
    assert "unknown shard 'shard-nope'" in plan_error(policy({"shard-nope": {"eu"}}), cluster())


def test_policy_key_that_is_no_refine_plans_a_resharding_blocked_without_the_opt_in() -> None:
    desired = policy(u=users(key={"country": 1}))
    ops = make_plan(desired, cluster(), boundaries={}, at=AT).ops
    reshard = [op for op in ops if isinstance(op, ReshardCollection)]
    assert len(reshard) == 1 and reshard[0].key == {"country": 1}
    assert "`reshard: true` under app.users (policy.yaml:9:3)" in reshard[0].blocked
    opted = policy(u=dataclasses.replace(users(key={"country": 1}), reshard=True))
    ops = make_plan(opted, cluster(), boundaries={}, at=AT).ops
    assert [op.blocked for op in ops if isinstance(op, ReshardCollection)] == [""]


def test_policy_key_extending_the_live_key_plans_a_refine_naming_the_missing_index() -> None:
    live_key = dict(cluster().collections["app.users"].key)
    new_key = {**live_key, "_id": 1}
    desired = policy(u=users(key=new_key))
    refine = [
        op
        for op in make_plan(desired, cluster(), boundaries={}, at=AT).ops
        if isinstance(op, RefineShardKey)
    ]
    assert len(refine) == 1 and "createIndex(" in refine[0].blocked


def test_hashed_key_needs_numberlong_bounds() -> None:
    actual = cluster(zones=EU, collections={"app.h": {"x": "hashed"}})
    bad = CollectionPolicy("app.h", ranges=(want("eu", {"x": 5}, {"x": Int64(9)}, line=4),))
    assert "policy.yaml:4:7: app.h: hashed field 'x' needs NumberLong" in plan_error(
        policy({"shard-std-0": {"eu"}}, h=bad), actual
    )
    good = CollectionPolicy("app.h", ranges=(want("eu", {"x": Int64(5)}, {"x": Int64(9)}),))
    assert (
        len(make_plan(policy({"shard-std-0": {"eu"}}, h=good), actual, boundaries={}, at=AT).ops)
        == 1
    )


def test_zone_left_with_ranges_but_no_shard_is_a_plan_error() -> None:
    desired = policy(
        {"shard-std-0": {"us"}}, u=users(want("eu", country("DE"), country("DF"), line=12))
    )
    assert "policy.yaml:12:7: zone eu would have ranges but no shard" in plan_error(
        desired, cluster()
    )


def test_moving_a_zone_used_by_an_unmanaged_namespace_adds_before_it_removes() -> None:
    actual = cluster(zones=EU, ranges=[live("app.old", "eu", {"a": 1}, {"a": 2})])
    desired = policy({"shard-std-1": {"eu"}, "shard-std-0": set()})
    assert [op.describe() for op in make_plan(desired, actual, boundaries={}, at=AT).ops] == [
        "add shard shard-std-1 to zone eu",
        "remove shard shard-std-0 from zone eu",
    ]


def test_zone_of_unmanaged_ranges_left_without_a_known_shard_is_an_error() -> None:
    # removeShardFromZone would fail with ZoneStillInUse: app.old still has an eu range.
    actual = cluster(zones=EU, ranges=[live("app.old", "eu", {"a": 1}, {"a": 2})])
    message = plan_error(policy({"shard-std-0": set(), "shard-std-9": {"eu"}}), actual)
    assert "unmanaged namespace app.old: zone eu would have ranges but no shard" in message


def test_overlapping_desired_ranges_are_a_plan_error() -> None:
    desired = policy(
        {"shard-std-0": {"eu"}},
        u=users(want("eu", country("DE"), country("FR")), want("eu", country("DF"), country("DG"))),
    )
    assert "overlaps" in plan_error(desired, cluster(zones=EU))


def test_range_not_a_prefix_of_the_key_is_a_plan_error() -> None:
    desired = policy({"shard-std-0": {"eu"}}, u=users(want("eu", {"userId": 1}, {"userId": 2})))
    assert "is not a prefix of the shard key" in plan_error(desired, cluster(zones=EU))


def test_every_problem_is_reported_at_once() -> None:
    desired = policy({"shard-nope": {"eu"}}, u=users(key={"x": "hashed", "y": "hashed"}))
    assert "(2 problem(s))" in plan_error(desired, cluster())
