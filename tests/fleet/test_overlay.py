"""Overlays are a pure function of the desired state: shards renamed, zones added, the
digest recomputed; and their checks against the policy and the live shards."""

from __future__ import annotations

from zonectl.diagnostics import Position
from zonectl.inventory import Overlay, apply_overlay, check_overlay_policy, check_overlay_shards
from zonectl.model.desired import CollectionPolicy, DesiredState

AT = Position("clusters.yaml", 9, 7)


def desired() -> DesiredState:
    return DesiredState(
        shards={"shard-a": frozenset({"hot"}), "shard-b": frozenset({"archive"})},
        collections={"app.audit": CollectionPolicy("app.audit", pin="archive")},
        digest="base",
        shard_positions={"shard-a": Position("p.yaml", 4, 3), "shard-b": Position("p.yaml", 5, 3)},
    )


def test_an_empty_overlay_returns_the_desired_state_unchanged() -> None:
    base = desired()
    assert apply_overlay(base, Overlay()) is base


def test_shard_names_are_renamed_and_keep_their_policy_positions() -> None:
    out = apply_overlay(desired(), Overlay({"shard-a": "rs0"}, {}, {"shardNames.shard-a": AT}))
    assert dict(out.shards) == {"rs0": {"hot"}, "shard-b": {"archive"}}
    assert out.shard_positions["rs0"] == Position("p.yaml", 4, 3)
    assert out.collections == desired().collections
    assert out.digest != "base" and len(out.digest) == 64


def test_extra_zones_add_memberships_to_existing_and_new_shards() -> None:
    overlay = Overlay({}, {"shard-b": frozenset({"hot"}), "rs9": frozenset({"eu"})}, {})
    out = apply_overlay(desired(), overlay)
    assert dict(out.shards) == {
        "rs9": {"eu"},
        "shard-a": {"hot"},
        "shard-b": {"archive", "hot"},
    }
    assert out.managed_zones == {"hot", "archive", "eu"}


def test_the_same_overlay_gives_the_same_digest_and_a_different_one_differs() -> None:
    one = Overlay({"shard-a": "rs0"}, {}, {})
    assert apply_overlay(desired(), one).digest == apply_overlay(desired(), one).digest
    other = Overlay({"shard-a": "rs1"}, {}, {})
    assert apply_overlay(desired(), one).digest != apply_overlay(desired(), other).digest


def test_renaming_a_shard_the_policy_lacks_or_onto_another_policy_shard_is_reported() -> None:
    overlay = Overlay(
        {"shard-q": "rs0", "shard-a": "shard-b"},
        {},
        {"shardNames.shard-q": AT, "shardNames.shard-a": Position("clusters.yaml", 10, 7)},
    )
    problems = check_overlay_policy("east", overlay, desired())
    assert [(d.code, d.position.line) for d in problems] == [("ZI140", 9), ("ZI141", 10)]


def test_swapping_two_policy_shard_names_is_allowed() -> None:
    overlay = Overlay({"shard-a": "shard-b", "shard-b": "shard-a"}, {}, {})
    assert check_overlay_policy("east", overlay, desired()) == []
    assert dict(apply_overlay(desired(), overlay).shards) == {
        "shard-a": {"archive"},
        "shard-b": {"hot"},
    }


def test_shards_the_cluster_lacks_are_reported_at_the_overlay_entry() -> None:
    overlay = Overlay({"shard-a": "rs0"}, {"rs9": frozenset({"eu"})}, {"extraZones.rs9": AT})
    problems = check_overlay_shards("east", overlay, {"rs0", "rs1"})
    assert [(d.code, d.position, "rs9" in d.message) for d in problems] == [("ZI142", AT, True)]
