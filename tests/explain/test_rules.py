"""The rules of zonectl/explain on facts alone (pure): the cases the sandbox cannot produce
(orphans waiting for the range deleter, a drop in flight) and the edges of MongoDB's
thresholds, each with its balancer_policy.cpp reading."""

from __future__ import annotations

import datetime as dt

from zonectl.explain.explain import explain
from zonectl.explain.facts import (
    NO_ZONE,
    BalancerFacts,
    ClusterFacts,
    CollectionFacts,
    Failures,
    ShardFacts,
    Tally,
)

MIB = 1024 * 1024
NOW = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
THREE = (ShardFacts("a"), ShardFacts("b"), ShardFacts("c"))


def _cluster(by_size: bool = True, **balancer: object) -> ClusterFacts:
    return ClusterFacts(THREE, by_size, balancer=BalancerFacts(**balancer), now=NOW)  # type: ignore[arg-type]


def _coll(counts: dict[str, int], **kw: object) -> CollectionFacts:
    tally = {(s, NO_ZONE): Tally(n) for s, n in counts.items()}
    return CollectionFacts("db.c", tally, max_chunk_bytes=MIB, **kw)  # type: ignore[arg-type]


def _codes(coll: CollectionFacts, cluster: ClusterFacts) -> tuple[str, list[str]]:
    found = explain(coll, cluster)
    return found.state, [r.code for r in found.reasons]


def test_chunk_counts_round_the_ideal_and_move_above_it() -> None:
    """5.0: ideal = roundf(4 / 3) = 1; a: 2 > 1, b: 1 is not below it: nothing moves."""
    coll = _coll({"a": 2, "b": 1, "c": 1})
    assert _codes(coll, _cluster(by_size=False)) == ("balanced", ["below-threshold"])
    coll = _coll({"a": 3, "b": 1, "c": 0})
    assert _codes(coll, _cluster(by_size=False)) == ("moving", ["chunks-imbalance"])


def test_data_size_moves_at_three_chunk_sizes_of_difference() -> None:
    sizes = {"a": 3 * MIB, "b": 0, "c": 0}
    coll = _coll({"a": 3}, sizes=sizes)
    assert _codes(coll, _cluster()) == ("moving", ["chunks-imbalance"])
    coll = _coll({"a": 3}, sizes={"a": 3 * MIB - 1, "b": 0, "c": 0})
    found = explain(coll, _cluster())
    assert found.state == "balanced"
    assert "is below the threshold 3 x chunk size = 3.0 MiB" in found.reasons[0].message


def test_orphans_waiting_for_the_range_deleter_are_said_whatever_the_state() -> None:
    coll = _coll({"a": 1, "b": 1, "c": 1}, sizes={"a": MIB, "b": MIB, "c": MIB}, orphans={"b": 40})
    found = explain(coll, _cluster())
    assert found.state == "balanced"
    (reason,) = found.reasons
    assert reason.code == "range-deletions-pending"
    assert reason.message.startswith("40 orphaned documents on b wait for the range deleter")


def test_a_collection_without_chunks_is_a_ddl_in_flight_not_an_error() -> None:
    coll = CollectionFacts("db.c", {}, ddl="a drop or creation (the collection has no chunks)")
    found = explain(coll, _cluster())
    assert (found.state, found.reasons[0].code) == ("waiting", "ddl-in-progress")


def test_a_draining_shard_holding_only_jumbo_chunks_never_empties() -> None:
    shards = (ShardFacts("a", draining=True), ShardFacts("b"), ShardFacts("c"))
    coll = CollectionFacts("db.c", {("a", NO_ZONE): Tally(2, 2)}, sizes={"a": 2 * MIB})
    found = explain(coll, ClusterFacts(shards, True, now=NOW))
    assert [r.code for r in found.reasons] == ["jumbo"]
    assert found.state == "stuck"
    assert "2 jumbo chunks on draining shard a" in found.reasons[0].message


def test_by_data_size_the_donor_is_the_most_loaded_shard_whatever_its_zones() -> None:
    """`_getMostOverloadedShard` by data size does not look at zones: with shard a (no zone)
    holding most bytes, zone z's two shards are not balanced against each other."""
    shards = (ShardFacts("a"), ShardFacts("b", frozenset({"z"})), ShardFacts("c", frozenset({"z"})))
    tally = {("a", NO_ZONE): Tally(20), ("b", "z"): Tally(10)}
    sizes = {"a": 20 * MIB, "b": 10 * MIB, "c": 0}
    coll = CollectionFacts(
        "db.c", tally, range_zones=frozenset({"z"}), sizes=sizes, max_chunk_bytes=MIB
    )
    found = explain(coll, ClusterFacts(shards, True, now=NOW))
    # The no-zone group moves (a to c); zone z alone would not.
    assert (found.state, [r.code for r in found.reasons]) == ("moving", ["chunks-imbalance"])
    assert found.reasons[0].message.startswith("a holds 20.0 MiB, c 0.0 MiB (no zone)")


def test_two_failures_are_said_three_in_a_row_are_stuck() -> None:
    sizes = {"a": 9 * MIB, "b": 0, "c": 0}
    two = _coll({"a": 9}, sizes=sizes, failures=Failures(2, NOW, "boom"))
    assert _codes(two, _cluster()) == ("moving", ["chunks-imbalance", "migration-failing"])
    three = _coll({"a": 9}, sizes=sizes, failures=Failures(3, NOW, "boom"))
    assert _codes(three, _cluster()) == ("stuck", ["migration-failing", "chunks-imbalance"])


def test_a_closed_window_says_when_it_opens() -> None:
    opens = NOW + dt.timedelta(hours=3, minutes=12)
    cluster = _cluster(window_open=False, window="window 15:12-16:00 (UTC)", opens=opens)
    found = explain(_coll({"a": 9}, sizes={"a": 9 * MIB}), cluster)
    assert found.state == "waiting"
    assert found.reasons[0].message == (
        "the balancer's window 15:12-16:00 (UTC) is closed; it opens at 2026-03-02T15:12:00Z "
        "(in 3h12m)"
    )
