"""Namespaces of one shape under other names are timed and routed each as if alone: the
balancer's rounds over one namespace alone, and its reshard route. Against the earlier
forms (reference_forecast.py), over generated layouts where namespaces share shapes under
other names, some twins differing in one thing only (a chunk's size, shard or zone, a
jumbo mark, the loads, the chunk size): every namespace's figures must be the ones
computed for it alone, and the whole forecast's totals the same."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.forecast_pure.reference_forecast import (
    reference_balancer,
    reference_eager,
    reference_pending_moves,
    reference_reshard,
)
from tests.forecast_pure.test_simulation_differential import MIB, NOW, _balancer, cases
from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.report import Assumptions, make_forecast
from zonectl.forecast.reshard import ReshardRates, routes_for

SETTINGS = settings(max_examples=200, deadline=None)


def _changed(draw: st.DrawFn, c: NamespaceChunks, shards: list[str]) -> NamespaceChunks:
    """A twin of `c` with one thing changed (or none)."""
    n = len(c.shards)
    i = draw(st.integers(0, n - 1))
    what = draw(
        st.sampled_from(["none", "size", "shard", "zone", "jumbo", "loads", "counts", "cap"])
    )
    if what == "size":
        sizes = list(c.sizes)
        sizes[i] += MIB
        return dataclasses.replace(c, sizes=sizes)
    if what == "shard":
        on = list(c.shards)
        on[i] = draw(st.sampled_from(shards))
        return dataclasses.replace(c, shards=on)
    if what == "zone":
        zones = list(c.zones)
        zones[i] = draw(st.sampled_from([None, "A", "B", "C", "D"]))
        return dataclasses.replace(c, zones=zones)
    if what == "jumbo":
        return dataclasses.replace(c, jumbo=set(c.jumbo) ^ {i})
    if what == "loads" and c.loads is not None:
        return dataclasses.replace(c, loads={s: v + MIB for s, v in c.loads.items()})
    if what == "counts" and c.counts is not None:
        return dataclasses.replace(c, counts={s: v + 1 for s, v in c.counts.items()})
    if what == "cap":
        return dataclasses.replace(c, max_chunk_bytes=draw(st.sampled_from([None, 32 * MIB])))
    return dataclasses.replace(c)


@st.composite
def twin_cases(draw: st.DrawFn) -> dict[str, Any]:
    case = draw(cases())
    shards = list(case["layout"])
    colls: list[NamespaceChunks] = list(case["colls"])
    for k in range(draw(st.integers(1, 8))):
        twin = _changed(draw, draw(st.sampled_from(case["colls"])), shards)
        colls.insert(draw(st.integers(0, len(colls))), dataclasses.replace(twin, ns=f"db.t{k}"))
    return {**case, "colls": colls}


def _alone_s(case: dict[str, Any], c: NamespaceChunks) -> float | None:
    out = _balancer(case, [c], reference_balancer)
    return None if out.finished is None else (out.finished - NOW).total_seconds()


@SETTINGS
@given(twin_cases())
def test_each_namespace_timed_as_if_alone(case: dict[str, Any]) -> None:
    a = Assumptions(
        copy_rate=64 * MIB,
        parallel=case["parallel"],
        window=case["window"],
        by_data_size=case["by_size"],
        model=case["cost"],
    )
    forecast = make_forecast(case["colls"], case["layout"], a, NOW)
    moves, loads = [], {}
    for c in case["colls"]:
        mine, loads[c.ns] = reference_pending_moves(c, case["layout"])
        moves += mine
    by_ns = {c.ns: c for c in case["colls"]}
    assert [n.ns for n in forecast.namespaces] == [
        c.ns for c in case["colls"] if reference_pending_moves(c, case["layout"])[0]
    ]
    for n in forecast.namespaces:
        assert n.balancer_s == _alone_s(case, by_ns[n.ns]), n.ns
    eager = reference_eager(moves, loads, case["parallel"], 64 * MIB, cost=case["cost"].seconds)
    assert forecast.eager_s == eager.seconds
    assert [(n.ns, n.eager_s) for n in forecast.namespaces] == [
        (n.ns, eager.finished.get(n.ns, eager.seconds)) for n in forecast.namespaces
    ]
    if forecast.namespaces and all(n.balancer_s is not None for n in forecast.namespaces):
        together = _balancer_together(case)
        want = None if together is None else (together - NOW).total_seconds()
        assert forecast.balancer_s == want


def _balancer_together(case: dict[str, Any]) -> dt.datetime | None:
    finished: dt.datetime | None = _balancer(case, case["colls"], reference_balancer).finished
    return finished


@SETTINGS
@given(twin_cases(), st.booleans())
def test_each_reshard_route_as_if_alone(case: dict[str, Any], available: bool) -> None:
    rates = ReshardRates(64 * MIB)
    routes = routes_for(case["colls"], case["layout"], rates, available=available)
    assert list(routes) == [c.ns for c in case["colls"]]
    for c in case["colls"]:
        if available:
            assert routes[c.ns] == reference_reshard(c, case["layout"], rates)
        else:  # before 7.2: named, not forecast
            assert (routes[c.ns].available, routes[c.ns].seconds) == (False, 0.0)
