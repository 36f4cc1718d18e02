"""The planner's ordering rules, one rule per test (see zonectl/plan/planner.py docstring)."""

from __future__ import annotations

from plan_builders import AT, MAX, MIN, cluster, country, live, policy, users, want

from zonectl.model.cluster import LiveBalancer
from zonectl.model.desired import ActiveWindow, BalancerPolicy, CollectionPolicy
from zonectl.plan.ops import (
    AddShardToZone,
    AssignZoneRange,
    RemoveShardFromZone,
    RemoveZoneRange,
    SetBalancerEnabled,
    SetBalancerWindow,
    SetCollectionBalancing,
)
from zonectl.plan.planner import make_plan

U = "app.users"


def kinds(plan: object) -> list[str]:
    return [type(op).__name__ for op in plan.ops]  # type: ignore[attr-defined]


def test_memberships_are_added_before_any_range_is_assigned() -> None:
    desired = policy({"shard-std-0": {"eu"}}, u=users(want("eu", country("DE"), country("DF"))))
    plan = make_plan(desired, cluster(), boundaries={}, at=AT)
    assert kinds(plan) == ["AddShardToZone", "AssignZoneRange"]


def test_range_removals_come_before_additions_in_a_namespace() -> None:
    actual = cluster(
        zones={"shard-std-0": ("eu",)},
        ranges=[live(U, "eu", country("DE"), country("DF"))],
    )
    desired = policy({"shard-std-0": {"eu"}}, u=users(want("eu", country("AT"), country("AU"))))
    plan = make_plan(desired, actual, boundaries={}, at=AT)
    assert kinds(plan) == ["RemoveZoneRange", "AssignZoneRange"]


def test_same_bounds_with_another_zone_is_removed_then_added() -> None:
    actual = cluster(
        zones={"shard-std-0": ("eu",), "shard-std-1": ("us",)},
        ranges=[live(U, "eu", country("DE"), country("DF"))],
    )
    desired = policy(
        {"shard-std-0": {"eu"}, "shard-std-1": {"us"}},
        u=users(want("us", country("DE"), country("DF"))),
    )
    ops = make_plan(desired, actual, boundaries={}, at=AT).ops
    assert ops == (
        RemoveZoneRange(U, "eu", country("DE"), country("DF")),
        AssignZoneRange(U, "us", country("DE"), country("DF")),
    )


def test_ties_within_a_group_are_broken_by_bson_order_of_min() -> None:
    # Numbers sort before strings in BSON, whatever the policy order says.
    desired = policy(
        {"shard-std-0": {"eu"}},
        u=users(
            want("eu", country("FR"), country("FS")),
            want("eu", {"country": 5}, {"country": 6}),
            want("eu", country("DE"), country("DF")),
        ),
    )
    actual = cluster(zones={"shard-std-0": ("eu",)})
    mins = [op.min["country"] for op in make_plan(desired, actual, boundaries={}, at=AT).ops]
    assert mins == [5, "DE", "FR"]


def test_namespaces_are_planned_in_name_order() -> None:
    a = CollectionPolicy("app.a", key={"x": 1}, pin="eu")
    b = CollectionPolicy("app.b", key={"x": 1}, pin="eu")
    desired = policy({"shard-std-0": {"eu"}}, b=b, a=a)
    actual = cluster(
        zones={"shard-std-0": ("eu",)}, collections={"app.b": {"x": 1}, "app.a": {"x": 1}}
    )
    ops = make_plan(desired, actual, boundaries={}, at=AT).ops
    assert [op.namespace for op in ops] == ["app.a", "app.b"]


def test_memberships_are_removed_after_the_zones_ranges_are_gone() -> None:
    actual = cluster(
        zones={"shard-std-0": ("eu",)},
        ranges=[live(U, "eu", country("DE"), country("DF"))],
    )
    desired = policy({"shard-std-0": set()}, u=users())
    # The policy names no zone at all now, so "eu" is not managed: nothing is removed.
    assert kinds(make_plan(desired, actual, boundaries={}, at=AT)) == ["RemoveZoneRange"]
    desired = policy({"shard-std-0": set(), "shard-std-1": {"eu"}}, u=users())
    plan = make_plan(desired, actual, boundaries={}, at=AT)
    assert plan.ops == (
        AddShardToZone("shard-std-1", "eu"),
        RemoveZoneRange(U, "eu", country("DE"), country("DF")),
        RemoveShardFromZone("shard-std-0", "eu"),
    )


def test_balancing_and_balancer_settings_come_last_window_before_switch() -> None:
    desired = policy(
        {"shard-std-0": {"eu"}},
        u=users(want("eu", country("DE"), country("DF")), balancing=False),
    )
    desired = type(desired)(
        shards=desired.shards,
        collections=desired.collections,
        balancer=BalancerPolicy(
            enabled=True, active_window=ActiveWindow("23:00", "06:00"), manage_window=True
        ),
    )
    actual = cluster(balancer=LiveBalancer(mode="off", stopped=True))
    ops = make_plan(desired, actual, boundaries={}, at=AT).ops
    assert [type(op) for op in ops] == [
        AddShardToZone,
        AssignZoneRange,
        SetCollectionBalancing,
        SetBalancerWindow,
        SetBalancerEnabled,
    ]


def test_pin_covers_global_min_to_global_max_of_the_live_key() -> None:
    desired = policy({"shard-std-0": {"eu"}}, u=users(pin="eu"))
    ops = make_plan(desired, cluster(zones={"shard-std-0": ("eu",)}), boundaries={}, at=AT).ops
    assert ops == (
        AssignZoneRange(U, "eu", {"country": MIN, "userId": MIN}, {"country": MAX, "userId": MAX}),
    )
