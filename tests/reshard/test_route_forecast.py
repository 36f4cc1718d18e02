"""The reshard route's forecast (zonectl/forecast/reshard.py) on plain values."""

from __future__ import annotations

import datetime as dt
from typing import Any

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.reshard import ReshardRates, forecast_reshard, recommend
from zonectl.forecast.reshard_learn import ReshardPhases, learn_phases

GIB = 1024**3
ZONES = {"s0": frozenset({"A"}), "s1": frozenset({"A"}), "s2": frozenset({"B"})}


def _chunks(zones: list[str | None], jumbo: set[int] | None = None) -> NamespaceChunks:
    n = len(zones)
    return NamespaceChunks("db.c", ["s0", "s1", "s2"] * (n // 3), [GIB] * n, zones, jumbo or set())


def test_the_route_lasts_as_long_as_the_busiest_shard_and_at_least_the_minimum() -> None:
    c = _chunks(["A", "A", "B"] * 4)
    route = forecast_reshard(c, ZONES, ReshardRates(copy_rate=GIB / 100))
    # each shard sends 4 GiB and receives 4 GiB at 1 GiB / 100 s: 400 s, then the assumed
    # catch-up (10 % of the copy, with no resharding in the history) and the 2 s commit
    assert route.busiest_bytes == 4 * GIB
    assert route.seconds == 400 + 40 + 2
    learned = ReshardPhases(catch_up_share=0.02, catch_up_floor_s=0.0, critical_s=3.0, runs=1)
    assert forecast_reshard(c, ZONES, ReshardRates(GIB / 100, learned)).seconds == 400 + 8 + 3
    small = forecast_reshard(c, ZONES, ReshardRates(copy_rate=GIB))
    assert small.seconds == 300 + 2  # the 5-minute minimum, then the critical section


def test_jumbo_chunks_outside_their_zone_make_resharding_the_recommended_route() -> None:
    c = _chunks(["B", "A", "B"], jumbo={0})  # chunk 0 on s0 belongs to B and is jumbo
    route = forecast_reshard(c, ZONES, ReshardRates(copy_rate=GIB))
    assert route.stranded_jumbo == 1
    assert recommend(10.0, 20.0, route) == "reshard"
    plain = forecast_reshard(_chunks(["A", "A", "B"]), ZONES, ReshardRates(copy_rate=GIB))
    assert recommend(10.0, 20.0, plain) == "migrate"  # 5 minutes at least: slower here


T0 = dt.datetime(2026, 3, 2, tzinfo=dt.UTC)


def _run(run: str, states: list[tuple[str, float]]) -> list[dict[str, Any]]:
    """A resharding's transition entries: (newState, seconds after T0)."""
    return [
        {
            "what": "resharding.coordinator.transition",
            "ns": "db.c",
            "time": T0 + dt.timedelta(seconds=t),
            "details": {"newState": state, "reshardingUUID": run},
        }
        for state, t in states
    ]


def test_phases_are_learned_only_from_runs_that_date_them_apart() -> None:
    long = [("initializing", 0), ("cloning", 1), ("applying", 1001), ("blocking-writes", 1031),
            ("committing", 1034), ("done", 1034)]  # fmt: skip
    short = [("cloning", 0), ("applying", 10), ("blocking-writes", 300), ("done", 304)]
    instant = [("cloning", 0), ("applying", 50), ("blocking-writes", 50), ("done", 50)]
    aborted = [("cloning", 0), ("applying", 900), ("aborting", 950), ("done", 950)]
    assert learn_phases(_run("i", instant) + _run("a", aborted)) == ReshardPhases()
    # within the minimum, applying waits it out: the critical section is learned, not the share
    only_short = learn_phases(_run("s", short))
    assert (only_short.runs, only_short.catch_up_runs, only_short.critical_s) == (1, 0, 4.0)
    assert only_short.catch_up_share == ReshardPhases().catch_up_share
    both = learn_phases(_run("l", long) + _run("s", short) + _run("i", instant))
    assert (both.runs, both.catch_up_runs, both.catch_up_share) == (2, 1, 30 / 1000)
    assert both.critical_s == 3.5 and both.catch_up_floor_s == 0.0
