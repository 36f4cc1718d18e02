"""The reshard route's forecast (zonectl/forecast/reshard.py) on plain values."""

from __future__ import annotations

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.reshard import ReshardRates, forecast_reshard, recommend

GIB = 1024**3
ZONES = {"s0": frozenset({"A"}), "s1": frozenset({"A"}), "s2": frozenset({"B"})}


def _chunks(zones: list[str | None], jumbo: set[int] | None = None) -> NamespaceChunks:
    n = len(zones)
    return NamespaceChunks("db.c", ["s0", "s1", "s2"] * (n // 3), [GIB] * n, zones, jumbo or set())


def test_the_route_lasts_as_long_as_the_busiest_shard_and_at_least_the_minimum() -> None:
    c = _chunks(["A", "A", "B"] * 4)
    route = forecast_reshard(c, ZONES, ReshardRates(copy_rate=GIB / 100))
    # each shard sends 4 GiB and receives 4 GiB at 1 GiB / 100 s: 400 s, then 2 % catch-up
    assert route.busiest_bytes == 4 * GIB
    assert route.seconds == 400 + 8 + 2
    small = forecast_reshard(c, ZONES, ReshardRates(copy_rate=GIB))
    assert small.seconds == 300 + 2  # the 5-minute minimum, then the critical section


def test_jumbo_chunks_outside_their_zone_make_resharding_the_recommended_route() -> None:
    c = _chunks(["B", "A", "B"], jumbo={0})  # chunk 0 on s0 belongs to B and is jumbo
    route = forecast_reshard(c, ZONES, ReshardRates(copy_rate=GIB))
    assert route.stranded_jumbo == 1
    assert recommend(10.0, 20.0, route) == "reshard"
    plain = forecast_reshard(_chunks(["A", "A", "B"]), ZONES, ReshardRates(copy_rate=GIB))
    assert recommend(10.0, 20.0, plain) == "migrate"  # 5 minutes at least: slower here
