"""The pure half of rotate (zonectl.plan.restrict) on plain values: which ops are window
ops, the key-type check, and the refusals that keep a swap from failing half-way."""

from __future__ import annotations

import datetime as dt

import pytest
from bson import Int64, ObjectId
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.model.cluster import ClusterState, LiveCollection, LiveRange, LiveShard
from zonectl.model.desired import CollectionPolicy, DesiredState, Firehose
from zonectl.plan.restrict import key_type_problem, make_window_plan, window_problems

NS = "app.events"
KEY = {"ts": 1, "_id": 1}
D1 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
D2 = dt.datetime(2026, 3, 2, tzinfo=dt.UTC)
FH = Firehose("ts", "date", "0 0 * * *", "UTC", 1, "hot", "archive")


def _bound(ts: object) -> dict[str, object]:
    return {"ts": ts, "_id": MaxKey() if isinstance(ts, MaxKey) else MinKey()}


def _state(*ranges: LiveRange, zones: tuple[str, ...] = ("hot", "archive")) -> ClusterState:
    return ClusterState(
        version="7.0.0",
        shards=tuple(LiveShard(f"s{i}", zones=(z,)) for i, z in enumerate(zones)),
        collections={NS: LiveCollection(NS, KEY)},
        ranges=ranges,
    )


def _desired(extra: dict[str, CollectionPolicy] | None = None) -> DesiredState:
    return DesiredState(
        shards={"s0": frozenset({"hot"}), "s1": frozenset({"archive"})},
        collections={NS: CollectionPolicy(NS, key=KEY, firehose=FH), **(extra or {})},
    )


WINDOW_D1 = (
    LiveRange(NS, "archive", _bound(MinKey()), _bound(D1)),
    LiveRange(NS, "hot", _bound(D1), _bound(MaxKey())),
)


def test_window_plan_swaps_removals_before_additions_and_names_both_boundaries() -> None:
    window = make_window_plan(_desired(), _state(*WINDOW_D1), boundaries={NS: D2}, at=D2)
    kinds = [op.kind for op in window.plan.ops]
    assert kinds == ["remove_zone_range"] * 2 + ["assign_zone_range"] * 2
    (move,) = window.moves
    assert (move.old, move.new) == (D1, D2)
    assert window_problems(window, _state(*WINDOW_D1)) == []


def test_window_plan_is_empty_when_the_window_is_at_its_boundary() -> None:
    window = make_window_plan(_desired(), _state(*WINDOW_D1), boundaries={NS: D1}, at=D1)
    assert window.plan.ops == () and window.moves == ()


def test_other_zones_and_collections_are_not_window_ops() -> None:
    pinned = {"app.audit": CollectionPolicy("app.audit", key={"_id": 1}, pin="archive")}
    legacy = LiveRange(NS, "legacy", _bound(D2), _bound(dt.datetime(2026, 3, 3, tzinfo=dt.UTC)))
    state = _state(WINDOW_D1[0], legacy, zones=("hot", "archive", "legacy"))
    window = make_window_plan(_desired(pinned), state, boundaries={NS: D2}, at=D2)
    assert all(op.zone in ("hot", "archive") for op in window.plan.ops)  # type: ignore[attr-defined]
    assert all(op.ns == NS for op in window.plan.ops)  # type: ignore[attr-defined]
    # ...and the new hot range would hit the legacy range rotate leaves in place.
    (problem,) = window_problems(window, state)
    assert "overlaps the live range" in problem and "zone legacy" in problem


def test_a_window_zone_no_live_shard_carries_is_a_problem() -> None:
    state = _state(*WINDOW_D1, zones=("archive", "other"))  # the policy adds hot to s0
    window = make_window_plan(_desired(), state, boundaries={NS: D2}, at=D2)
    assert any("zone hot has no shard in the cluster" in p for p in window_problems(window, state))


@pytest.mark.parametrize(
    ("type_", "sample", "suggest"),
    [
        ("date", ObjectId.from_datetime(D1), "objectId"),
        ("objectId", D1, "date"),
        ("date", 1_772_323_200, "epochSeconds"),
        ("epochSeconds", Int64(1_772_323_200_000), "epochMillis"),
        ("epochMillis", 1_772_323_200, "epochSeconds"),
    ],
)
def test_a_live_key_of_another_type_is_named_with_the_type_to_use(
    type_: str, sample: object, suggest: str
) -> None:
    fh = Firehose("ts", type_, "0 0 * * *", "UTC", 1, "hot")  # type: ignore[arg-type]
    problem = key_type_problem(NS, fh, sample)
    assert problem is not None and f"set `type: {suggest}`" in problem


@pytest.mark.parametrize(
    ("type_", "sample"),
    [
        ("date", D1),
        ("objectId", ObjectId.from_datetime(D1)),
        ("epochSeconds", 1_772_323_200),
        ("epochMillis", Int64(1_772_323_200_000)),
        ("date", MinKey()),  # a single chunk: nothing to compare with
        ("date", None),
    ],
)
def test_a_matching_or_unknown_live_key_is_accepted(type_: str, sample: object) -> None:
    fh = Firehose("ts", type_, "0 0 * * *", "UTC", 1, "hot")  # type: ignore[arg-type]
    assert key_type_problem(NS, fh, sample) is None
