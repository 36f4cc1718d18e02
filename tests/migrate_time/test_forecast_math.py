"""The forecast's arithmetic: copy rates, active windows across midnight and DST, balancer
rounds inside a window that closes and reopens, and the parallel schedule's makespan."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from zonectl.forecast.balancer import NamespaceChunks, simulate_balancer
from zonectl.forecast.balancer_window import ActiveWindow, parse_hhmm
from zonectl.forecast.eager import PendingMove, lower_bound_seconds, simulate_eager
from zonectl.forecast.report import Assumptions, make_forecast
from zonectl.forecast.timing import CostModel, copy_seconds
from zonectl.forecast.units import format_duration, parse_rate
from zonectl.time_zones import load_time_zone

BYTES = CostModel(rate=1024 * 1024, fixed_s=0.0).seconds  # the arithmetic alone
MIB = 1024 * 1024
UTC = dt.UTC
BERLIN = ZoneInfo("Europe/Berlin")


def at(y: int, mo: int, d: int, h: int, mi: int = 0, tz: dt.tzinfo = UTC) -> dt.datetime:
    return dt.datetime(y, mo, d, h, mi, tzinfo=tz)


@pytest.mark.parametrize(
    ("text", "value"),
    [("40MiB/s", 40 * MIB), ("100MB/s", 100e6), ("1.5 GiB/s", 1.5 * 1024**3), ("64MiB", 64 * MIB)],
)
def test_copy_rates_parse_in_binary_and_decimal_units(text: str, value: float) -> None:
    assert parse_rate(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["-4MB/s", "0MiB/s", "fast", "", "40 parsecs/s"])
def test_a_negative_zero_or_unparseable_copy_rate_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_rate(text)


def test_a_migration_takes_a_fixed_part_plus_its_bytes_over_the_rate() -> None:
    assert copy_seconds(64 * MIB, 16 * MIB) == 5.0  # the assumed second, then 4 s
    assert copy_seconds(1 * MIB, 16 * MIB, fixed_s=0.5) == 0.5625
    model = CostModel(rate=16 * MIB, fixed_s=0.5, shard_rates={"slow": 4 * MIB},
                      pair_rates={("a", "b"): 32 * MIB})  # fmt: skip
    assert model.seconds("a", "c", 16 * MIB) == 1.5  # neither shard known: the rate
    assert model.seconds("c", "slow", 16 * MIB) == 4.5  # the slower shard sets the pace
    assert model.seconds("a", "b", 16 * MIB) == 1.0  # a pair's own rate wins
    # moveCollection: the resharding minimum, then the copy; a learned length as a floor.
    assert model.move_collection_seconds("a", "slow", 40 * MIB) == 310.0
    learned = CostModel(rate=16 * MIB, move_collection_s=900.0)
    assert learned.move_collection_seconds("a", "b", 16 * MIB) == 900.0
    assert format_duration(2 * 86400 + 4 * 3600 + 600) == "2d 04h10m"


def test_an_unknown_time_zone_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown time zone"):
        load_time_zone("Mars/Olympus")
    with pytest.raises(ValueError):
        parse_hhmm("25:00")


def test_a_window_spanning_midnight_contains_both_sides_and_opens_at_its_start() -> None:
    w = ActiveWindow(parse_hhmm("23:00"), parse_hhmm("06:00"))
    assert w.contains(at(2026, 3, 2, 23, 30)) and w.contains(at(2026, 3, 3, 5, 59))
    assert not w.contains(at(2026, 3, 3, 12))
    assert w.next_open(at(2026, 3, 3, 12)) == at(2026, 3, 3, 23)
    assert w.next_open(at(2026, 3, 3, 2)) == at(2026, 3, 3, 2)  # already inside
    assert w.closes_after(at(2026, 3, 3, 2)) == at(2026, 3, 3, 6, 1)


def test_a_window_is_read_in_the_config_servers_time_zone() -> None:
    w = ActiveWindow(parse_hhmm("01:00"), parse_hhmm("02:00"), BERLIN)
    # 01:00 Berlin in winter is 00:00 UTC.
    assert w.next_open(at(2026, 1, 10, 12)) == at(2026, 1, 11, 0)


def test_a_window_starting_inside_the_spring_dst_gap_opens_when_the_gap_ends() -> None:
    # 2026-03-29 Berlin: 02:00 CET jumps to 03:00 CEST; 02:30 never shows on the clock.
    w = ActiveWindow(parse_hhmm("02:30"), parse_hhmm("04:00"), BERLIN)
    opened = w.next_open(at(2026, 3, 28, 22))  # 23:00 CET the evening before
    assert opened.astimezone(BERLIN).strftime("%H:%M %Z") == "03:00 CEST"
    assert opened == at(2026, 3, 29, 1)


def test_a_window_in_the_autumn_dst_fold_opens_at_the_first_occurrence() -> None:
    # 2026-10-25 Berlin: 03:00 CEST falls back to 02:00 CET; 02:30 happens twice.
    w = ActiveWindow(parse_hhmm("02:30"), parse_hhmm("05:00"), BERLIN)
    opened = w.next_open(at(2026, 10, 24, 20))
    assert opened == at(2026, 10, 25, 0, 30)  # 02:30 CEST
    assert opened.astimezone(BERLIN).utcoffset() == dt.timedelta(hours=2)


def _chunks(sizes: list[int], shard: str = "hot", zone: str = "cold") -> NamespaceChunks:
    n = len(sizes)
    return NamespaceChunks("app.e", [shard] * n, list(sizes), [zone] * n)


def test_balancer_rounds_wait_for_the_window_and_resume_when_it_reopens() -> None:
    zones = {"hot": frozenset({"hot"}), "c1": frozenset({"cold"})}
    # Three 50-minute migrations, one at a time (one donor): 01:00-01:50, 01:50:01-02:40:01
    # (a migration started inside the window runs past its close), then the next night.
    w = ActiveWindow(parse_hhmm("01:00"), parse_hhmm("02:00"))
    size = 50 * 60 * MIB
    out = simulate_balancer(
        [_chunks([size] * 3)], zones, MIB, at(2026, 3, 2, 0), window=w, cost=BYTES
    )
    assert out.moved == 3 and out.rounds == 3
    assert out.finished == at(2026, 3, 3, 1, 50)
    assert out.drained["hot"] == out.finished


def test_balancer_rounds_last_as_long_as_their_longest_migration_plus_a_second() -> None:
    zones = {
        "h1": frozenset({"hot"}),
        "h2": frozenset({"hot"}),
        "c1": frozenset({"cold"}),
        "c2": frozenset({"cold"}),
    }
    c = NamespaceChunks("app.e", ["h1", "h2", "h1", "h2"], [10 * MIB, 2 * MIB, 2 * MIB, 2 * MIB],
                        ["cold"] * 4)  # fmt: skip
    out = simulate_balancer([c], zones, MIB, at(2026, 3, 2, 0), cost=BYTES)
    # Round 1: h1->c?, h2->c? in parallel, 10 s; 1 s pause; round 2: 2 s.
    assert (out.finished - at(2026, 3, 2, 0)).total_seconds() == pytest.approx(13.0)


def _moves(spec: list[tuple[str, int]], holders: tuple[str, ...]) -> list[PendingMove]:
    return [PendingMove("app.e", i, donor, holders, size) for i, (donor, size) in enumerate(spec)]


def test_the_parallel_schedule_reaches_the_lower_bound_when_shards_pair_up() -> None:
    moves = _moves([("h1", 4 * MIB)] * 3 + [("h2", 4 * MIB)] * 3, ("c1", "c2"))
    loads = {"app.e": {"h1": 12 * MIB, "h2": 12 * MIB, "c1": 0, "c2": 0}}
    out = simulate_eager(moves, loads, 4, MIB, cost=BYTES)
    assert out.moved == 6 and out.left == 0
    assert out.seconds == pytest.approx(12.0) == lower_bound_seconds(moves, MIB)


def test_namespaces_share_one_queue_so_disjoint_pairs_overlap() -> None:
    moves = [
        PendingMove(f"app.n{k}", i, f"d{k}", (f"r{k}",), 4 * MIB)
        for k in range(4)
        for i in range(6)
    ]
    loads = {f"app.n{k}": {f"d{k}": 24 * MIB, f"r{k}": 0} for k in range(4)}
    out = simulate_eager(moves, loads, 8, MIB, cost=BYTES)
    assert out.seconds == pytest.approx(24.0) == lower_bound_seconds(moves, MIB)  # not 4 x 24
    assert out.finished == {f"app.n{k}": pytest.approx(24.0) for k in range(4)}
    serial = simulate_eager(moves, loads, 1, MIB, cost=BYTES)
    assert serial.seconds == pytest.approx(96.0)


def test_parallel_one_is_the_serial_sum() -> None:
    moves = _moves([("h1", 4 * MIB), ("h2", 2 * MIB)], ("c1", "c2"))
    out = simulate_eager(moves, {"app.e": {"h1": 0, "h2": 0, "c1": 0, "c2": 0}}, 1, MIB, cost=BYTES)
    assert out.seconds == pytest.approx(6.0)


def test_a_budget_stops_starting_moves_and_counts_the_rest() -> None:
    moves = _moves([("h1", 4 * MIB)] * 5, ("c1",))
    out = simulate_eager(moves, {"app.e": {"h1": 0, "c1": 0}}, 2, MIB, budget_s=5.0, cost=BYTES)
    assert out.moved == 2 and out.left == 3  # started at 0 and 4; at 8 the budget is over


def test_the_forecast_reports_both_routes_and_the_backlog_per_donor() -> None:
    zones = {"hot": frozenset({"hot"}), "c1": frozenset({"cold"}), "c2": frozenset({"cold"})}
    c = _chunks([8 * MIB] * 4)
    now = at(2026, 3, 2, 12)
    w = ActiveWindow(parse_hhmm("23:00"), parse_hhmm("06:00"))
    f = make_forecast([c], zones, Assumptions(MIB, 3, window=w, model=CostModel(MIB, 0.0)), now)
    assert (f.chunks, f.bytes) == (4, 32 * MIB)
    assert f.eager_s == pytest.approx(32.0)  # one donor: its bytes in a row
    assert f.balancer_at is not None and f.balancer_at > at(2026, 3, 2, 23)
    assert f.backlog[0].shard == "hot" and f.backlog[0].bytes == 32 * MIB
    off = make_forecast(
        [c], zones, Assumptions(MIB, 3, balancer_enabled=False, model=CostModel(MIB, 0.0)), now
    )
    assert off.balancer_s is None and off.namespaces[0].why_not == "the balancer is off"
