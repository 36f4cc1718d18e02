"""The forecast's simulations against their earlier forms (reference_forecast.py), over
generated layouts (shards with no zone, with two, zones no shard has) and namespaces (jumbo
chunks, chunks larger than the chunk size, loads given or counted, by bytes or by chunk
counts), with and without a balancer window: the balancer's rounds alone and together, the
queued moves, apply --migrate's dispatcher (failed moves and a budget included), the
reshard route. Every number must be the same."""

from __future__ import annotations

import datetime as dt
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.forecast_pure.reference_forecast import (
    ReferenceDispatcher,
    reference_balancer,
    reference_eager,
    reference_pending_moves,
    reference_reshard,
)
from zonectl.forecast.balancer import Layout, NamespaceChunks, balancer_finish, simulate_balancer
from zonectl.forecast.balancer_window import ActiveWindow
from zonectl.forecast.eager import Dispatcher, Started, simulate_eager
from zonectl.forecast.report import pending_moves
from zonectl.forecast.reshard import ReshardRates, ZoneShares, forecast_reshard
from zonectl.forecast.timing import CostModel

MIB = 1024 * 1024
NOW = dt.datetime(2026, 3, 2, 3, 30, tzinfo=dt.UTC)
ZONES = ["A", "B", "C"]
SETTINGS = settings(max_examples=200, deadline=None)


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    shards = [f"s{i}" for i in range(draw(st.integers(2, 5)))]
    layout = {s: frozenset(draw(st.sets(st.sampled_from(ZONES), max_size=2))) for s in shards}
    colls = []
    for k in range(draw(st.integers(1, 5))):
        n = draw(st.integers(1, 6))
        on = [draw(st.sampled_from(shards)) for _ in range(n)]
        sizes = [draw(st.integers(0, 300)) * MIB // 2 for _ in range(n)]
        zones = [draw(st.sampled_from([None, "A", "B", "C", "D"])) for _ in range(n)]
        loads = counts = None
        if draw(st.booleans()):  # a targeted read: the collection's loads and counts given
            loads = {s: draw(st.integers(0, 900)) * MIB for s in shards}
            counts = {s: draw(st.integers(0, 9)) for s in shards}
        colls.append(
            NamespaceChunks(
                f"db.c{k}",
                on,
                sizes,
                zones,
                jumbo=draw(st.sets(st.integers(0, n - 1), max_size=2)),
                loads=loads,
                counts=counts,
                max_chunk_bytes=draw(st.sampled_from([None, 64 * MIB, 128 * MIB])),
            )
        )
    rates = {s: draw(st.sampled_from([16, 64, 200])) * MIB for s in shards}
    cost = CostModel(
        rate=64 * MIB,
        fixed_s=draw(st.sampled_from([0.0, 1.0, 2.5])),
        shard_rates=rates if draw(st.booleans()) else {},
        pair_rates={(shards[0], shards[1]): 8 * MIB} if draw(st.booleans()) else {},
    )
    window = None
    if draw(st.booleans()):
        start, stop = draw(st.sampled_from([(60, 300), (1380, 120), (200, 260)]))
        window = ActiveWindow(start, stop, dt.UTC)
    return {
        "layout": layout,
        "colls": colls,
        "cost": cost,
        "window": window,
        "by_size": draw(st.booleans()),
        "parallel": draw(st.integers(1, 4)),
        "budget": draw(st.sampled_from([None, None, 30.0, 600.0])),
    }


def _balancer(case: dict[str, Any], colls: list[NamespaceChunks], sim: Any, **kw: Any) -> Any:
    return sim(
        colls,
        case["layout"],
        64 * MIB,
        NOW,
        window=case["window"],
        by_data_size=case["by_size"],
        cost=case["cost"].seconds,
        **kw,
    )


@SETTINGS
@given(cases())
def test_balancer_rounds_alone_and_together(case: dict[str, Any]) -> None:
    layout = Layout(case["layout"])
    together = _balancer(case, case["colls"], reference_balancer)
    assert _balancer(case, case["colls"], simulate_balancer) == together
    assert _balancer(case, case["colls"], simulate_balancer, layout=layout) == together
    for c in case["colls"]:
        alone = _balancer(case, [c], simulate_balancer, layout=layout)
        assert alone == _balancer(case, [c], reference_balancer)
        finish = balancer_finish(
            c,
            layout,
            64 * MIB,
            NOW,
            window=case["window"],
            by_data_size=case["by_size"],
            cost=case["cost"].seconds,
        )
        assert finish == alone.finished


@SETTINGS
@given(cases())
def test_queued_moves_and_the_migrate_simulation(case: dict[str, Any]) -> None:
    moves, loads = [], {}
    for c in case["colls"]:
        mine, loads[c.ns] = pending_moves(c, case["layout"])
        assert (mine, loads[c.ns]) == reference_pending_moves(c, case["layout"])
        moves += mine
    args = (moves, loads, case["parallel"], 64 * MIB)
    kw = {"budget_s": case["budget"], "cost": case["cost"].seconds}
    assert simulate_eager(*args, **kw) == reference_eager(*args, **kw)


@SETTINGS
@given(cases(), st.lists(st.booleans(), min_size=40, max_size=40))
def test_the_dispatcher_with_failed_moves(case: dict[str, Any], outcomes: list[bool]) -> None:
    """As apply drives it: start what it gives, end the oldest running move (ok or failed:
    a failed one gives its bytes back), until nothing is left or it gives up."""
    moves, loads = [], {}
    for c in case["colls"]:
        mine, loads[c.ns] = pending_moves(c, case["layout"])
        moves += mine
    mine = Dispatcher(moves, loads, case["parallel"])
    ref = ReferenceDispatcher(moves, loads, case["parallel"])

    def seen(started: list[Started]) -> list[tuple[str, int, str]]:
        return [(s.move.ns, s.move.index, s.to) for s in started]

    for ok in outcomes:
        assert seen(mine.next_moves()) == seen(ref.next_moves())
        assert seen(mine.running) == seen(ref.running)
        if not mine.running:
            break
        mine.done(mine.running[0], ok)
        ref.done(ref.running[0], ok)
        assert (mine.busy, mine.loads, mine.work) == (ref.busy, ref.loads, ref.work)
    assert mine.give_up() == ref.give_up()
    assert seen(mine.next_moves()) == seen(ref.next_moves())


@SETTINGS
@given(cases())
def test_reshard_routes(case: dict[str, Any]) -> None:
    rates = ReshardRates(64 * MIB)
    shares = ZoneShares(case["layout"])
    for c in case["colls"]:
        want = reference_reshard(c, case["layout"], rates)
        assert forecast_reshard(c, case["layout"], rates) == want
        assert forecast_reshard(c, case["layout"], rates, shares=shares) == want
