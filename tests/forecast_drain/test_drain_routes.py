"""The drain forecast's arithmetic (zonectl.forecast.drain, pure): the balancer one migration
at a time off the draining shard with its throttle, inside its window, skipping jumbo
chunks; apply --migrate serial without throttle; resharding named only where it is the one to
take; the unsharded data's moves alongside."""

from __future__ import annotations

import datetime as dt

from zonectl.forecast.balancer_window import ActiveWindow, parse_hhmm
from zonectl.forecast.drain import DrainAssumptions, forecast_drain
from zonectl.forecast.reshard import ReshardRates
from zonectl.forecast.timing import CostModel
from zonectl.model.shard_lifecycle import DrainCollection, JumboChunk, ShardDrain

MIB = 1024 * 1024
NOW = dt.datetime(2026, 3, 2, 0, 0, tzinfo=dt.UTC)
# 1 s fixed + 64 MiB at 64 MiB/s: each 64 MiB chunk costs 2 s.
COST = CostModel(rate=64 * MIB, fixed_s=1.0)


def drain(chunks: int = 10, *, jumbo: int = 0, unsharded: int = 0, dbs: int = 0) -> ShardDrain:
    big = tuple(JumboChunk("db.a", {"k": i}, {"k": i + 1}, 64 * MIB) for i in range(jumbo))
    coll = DrainCollection("db.a", chunks, chunks * 64 * MIB, big)
    names = tuple(f"db.u{i}" for i in range(unsharded))
    return ShardDrain("s2", True, (coll,), names, tuple(f"d{i}" for i in range(dbs)))


def assume(**kw: object) -> DrainAssumptions:
    base: dict[str, object] = {"cost": COST, "recipients": ("s0", "s1")}
    return DrainAssumptions(**{**base, **kw})  # type: ignore[arg-type]


def test_the_balancer_moves_one_chunk_at_a_time_with_its_throttle_between() -> None:
    f = forecast_drain(drain(10), assume(), NOW)
    assert f.balancer.seconds == 10 * 2.0 + 9 * 1.0  # nine throttles between ten migrations
    assert f.balancer.migrations == 10
    slower = forecast_drain(drain(10), assume(throttle_s=5.0), NOW)
    assert slower.balancer.seconds == 10 * 2.0 + 9 * 5.0


def test_apply_migrate_is_serial_off_the_draining_shard_without_throttle() -> None:
    # Two recipients, yet the draining shard takes part in one migration at a time.
    f = forecast_drain(drain(10), assume(recipients=("s0", "s1", "s3")), NOW)
    assert f.migrate.seconds == 10 * 2.0
    assert f.migrate.migrations == 10


def test_the_balancer_starts_migrations_only_inside_its_window() -> None:
    # Each migration 40 s; window 01:00-01:01 (both ends inclusive): two start inside it,
    # the third waits for the next night's opening.
    cost = CostModel(rate=MIB, fixed_s=1.0)
    d = ShardDrain("s2", True, (DrainCollection("db.a", 3, 3 * 39 * MIB),))
    window = ActiveWindow(parse_hhmm("01:00"), parse_hhmm("01:01"))
    f = forecast_drain(d, assume(cost=cost, window=window), NOW)
    assert f.at(f.balancer.seconds) == dt.datetime(2026, 3, 3, 1, 0, 40, tzinfo=dt.UTC)
    assert f.window == "window 01:00-01:01"
    # --migrate keeps no window: three migrations back to back from now.
    assert f.migrate.seconds == 120.0


def test_a_jumbo_chunk_stops_the_balancer_and_migrate_until_allowed() -> None:
    f = forecast_drain(drain(4, jumbo=1), assume(), NOW)
    assert f.balancer.seconds is None
    assert "1 jumbo chunk stays" in f.balancer.why_not
    assert f.balancer.rest_s == 3 * 2.0 + 2 * 1.0  # the other three chunks
    assert f.migrate.seconds is None
    assert "--force-jumbo" in f.migrate.why_not
    assert f.migrate.rest_s == 4 * 2.0  # with --force-jumbo, the jumbo chunk too
    allowed = forecast_drain(drain(4, jumbo=1), assume(force_jumbo=True), NOW)
    assert allowed.balancer.seconds is None  # no balancer setting moves it off a drain
    assert allowed.migrate.seconds == 4 * 2.0


def test_the_balancer_off_never_drains_but_migrate_does() -> None:
    f = forecast_drain(drain(3), assume(balancer_enabled=False), NOW)
    assert f.balancer.seconds is None
    assert "balancer is off" in f.balancer.why_not
    assert f.migrate.seconds == 6.0


def test_no_recipient_is_never_for_every_route() -> None:
    f = forecast_drain(drain(3), assume(recipients=(), reshard=ReshardRates(64 * MIB)), NOW)
    assert f.balancer.seconds is None and f.migrate.seconds is None
    assert f.reshard is not None and f.reshard.seconds is None


def test_each_balancer_migration_moves_at_most_the_chunk_size() -> None:
    # One 256 MiB chunk with a 128 MiB chunk size: the balancer takes two migrations, a
    # zonectl move one.
    d = ShardDrain("s2", True, (DrainCollection("db.a", 1, 256 * MIB),))
    f = forecast_drain(d, assume(max_chunk_bytes=128 * MIB), NOW)
    assert f.balancer.migrations == 2
    assert f.balancer.seconds == 2 * (1.0 + 2.0) + 1.0
    assert f.migrate.seconds == 1.0 + 4.0
    # A collection's own chunk size wins for its chunks alone (config.system.sessions has
    # a small one; the others keep the cluster's).
    two = ShardDrain("s2", True, (d.collections[0], DrainCollection("db.s", 1, 256 * MIB)))
    caps = {"db.s": 64 * MIB}
    f = forecast_drain(two, assume(max_chunk_bytes=128 * MIB, chunk_caps=caps), NOW)
    assert f.balancer.migrations == 2 + 4


def test_unsharded_data_moves_one_at_a_time_alongside_the_chunks() -> None:
    # Two moveCollections of at least 300 s each, then a movePrimary (its fixed part).
    f = forecast_drain(drain(3, unsharded=2, dbs=1), assume(), NOW)
    assert f.unsharded_s == 2 * 300.0 + 1.0
    assert f.balancer.seconds == f.migrate.seconds == 601.0
    assert (f.collection_moves, f.primaries) == (2, 1)
    learned = CostModel(rate=64 * MIB, fixed_s=1.0, move_collection_s=900.0)
    assert forecast_drain(drain(3, unsharded=1), assume(cost=learned), NOW).unsharded_s == 900.0


def test_resharding_is_named_only_where_faster_or_where_jumbo_chunks_block_the_others() -> None:
    rates = ReshardRates(64 * MIB)
    few = forecast_drain(drain(10), assume(reshard=rates), NOW)
    assert few.reshard is not None and few.reshard.seconds is not None
    assert few.reshard.seconds > few.migrate.seconds  # type: ignore[operator]
    assert not few.reshard_named  # the 5-minute minimum alone is longer
    # 2000 chunks of 64 MiB on the shard: 2000 migrations one at a time against one
    # resharding from every shard at once.
    many = forecast_drain(drain(2000), assume(reshard=rates), NOW)
    assert many.reshard_named
    stuck = forecast_drain(drain(10, jumbo=1), assume(reshard=rates), NOW)
    assert stuck.reshard_named  # the only route that finishes
    assert forecast_drain(drain(2000), assume(), NOW).reshard is None  # before 7.2


def test_unknown_sizes_are_taken_from_the_estimated_remaining_bytes() -> None:
    d = ShardDrain(
        "s2",
        True,
        (DrainCollection("db.a", 4, None),),
        estimated_remaining_bytes=4 * 64 * MIB,
    )
    f = forecast_drain(d, assume(), NOW)
    assert f.migrate.seconds == 4 * 2.0
    assert f.bytes is None
    assert any("estimatedRemainingBytes" in n for n in f.notes)


def test_an_empty_drain_takes_no_time() -> None:
    f = forecast_drain(ShardDrain("s2", True), assume(balancer_enabled=False), NOW)
    assert f.balancer.seconds == f.migrate.seconds == 0.0


def test_config_system_sessions_migrates_beside_the_reshardings() -> None:
    # It cannot be resharded: its 400 chunks (1 s each, one at a time) outlast the one
    # resharding of db.a (its 5-minute minimum and 2 s of writes blocked).
    sessions = DrainCollection("config.system.sessions", 400, 0)
    d = ShardDrain("s2", True, (DrainCollection("db.a", 1, 64 * MIB), sessions))
    f = forecast_drain(d, assume(reshard=ReshardRates(64 * MIB)), NOW)
    assert f.reshard is not None
    assert (f.reshard.seconds, f.reshard.migrations) == (400.0, 1)
