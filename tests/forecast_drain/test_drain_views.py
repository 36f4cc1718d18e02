"""The drain forecast in the plan's views (text, markdown, json): each removal's time by the
balancer (inside its window), by apply --migrate and, where it is the one to take, by
resharding, with finish instants from the forecast's start; a forecast without drains reads
as before."""

from __future__ import annotations

import dataclasses
import datetime as dt

from zonectl.forecast.balancer_window import ActiveWindow, parse_hhmm
from zonectl.forecast.drain import DrainAssumptions, forecast_drain
from zonectl.forecast.report import Assumptions, Forecast, make_forecast
from zonectl.forecast.reshard import ReshardRates
from zonectl.model.shard_lifecycle import DrainCollection, JumboChunk, ShardDrain
from zonectl.render.forecast import forecast_dict, render_forecast_markdown, render_forecast_text

MIB = 1024 * 1024
NOW = dt.datetime(2026, 3, 2, 0, 0, tzinfo=dt.UTC)
WINDOW = ActiveWindow(parse_hhmm("01:00"), parse_hhmm("05:00"))


def with_drains(*drains: ShardDrain) -> Forecast:
    a = Assumptions(copy_rate=64 * MIB, parallel=2, window=WINDOW)
    f = make_forecast([], {"s0": frozenset(), "s1": frozenset()}, a, NOW)
    da = DrainAssumptions(
        a.cost, recipients=("s0", "s1"), window=WINDOW, reshard=ReshardRates(64 * MIB)
    )
    return dataclasses.replace(f, drains=tuple(forecast_drain(d, da, NOW) for d in drains))


PLAIN = ShardDrain("s2", True, (DrainCollection("db.a", 10, 10 * 64 * MIB),), ("db.u",), ("db",))
JUMBO = ShardDrain(
    "s3", True, (DrainCollection("db.a", 3, 3 * 64 * MIB, (JumboChunk("db.a", {}, {}, None),)),)
)


def test_the_text_gives_each_route_with_its_finish_instant() -> None:
    text = render_forecast_text(with_drains(PLAIN, JUMBO))
    assert text.startswith("Forecast: every chunk is in its zone; 2 shards to drain")
    # Ten 2 s migrations wait for the 01:00 window, then 1 s apart; the moveCollection's
    # five minutes run alongside; --migrate takes 20 s of chunks, the same five minutes.
    assert (
        "  drain of shard s2: 10 chunks, 640.0 MiB, 1 unsharded collection, 1 database "
        "primary; by the balancer ~1h00m (at 2026-03-02 01:00 UTC, inside its window "
        "01:00-05:00 UTC), by apply --migrate ~5m01s (at 2026-03-02 00:05 UTC)\n"
    ) in text
    assert "by resharding" not in text.split("drain of shard s3")[0]  # slower: not named
    assert (
        "  drain of shard s3: 3 chunks, 192.0 MiB, 1 jumbo chunk; by the balancer never "
        "(1 jumbo chunk stays: the balancer never moves a jumbo chunk off a draining shard; "
        "split them, or take apply --migrate --force-jumbo or resharding; its other chunks "
        "leave in ~1h00m), by apply --migrate never (1 jumbo chunk stops it: pass "
        "--force-jumbo; with it ~6s), by resharding ~5m02s (at 2026-03-02 00:05 UTC)\n"
    ) in text


def test_markdown_and_json_carry_the_drains() -> None:
    f = with_drains(JUMBO)
    md = render_forecast_markdown(f)
    assert "#### Shard drains" in md
    assert "| `s3` | 3 chunks, 192.0 MiB, 1 jumbo chunk | never (" in md
    doc = forecast_dict(f)["drains"][0]
    assert doc["shard"] == "s3"
    assert doc["balancer"]["seconds"] is None
    assert doc["balancer"]["migrations"] == 2
    assert doc["reshard"]["at"] == "2026-03-02T00:05:02+00:00"
    assert doc["reshard_named"] is True


def test_a_forecast_without_drains_reads_as_before() -> None:
    f = with_drains()
    assert render_forecast_text(f) == "Forecast: nothing to move; every chunk is in its zone.\n"
    assert "drains" not in forecast_dict(f)
    assert "Shard drains" not in render_forecast_markdown(f)
