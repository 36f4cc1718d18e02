"""The time of the plan's moveCollection ops (8.0 unsharded pins), for the forecast: apply
runs them one after another, alongside the chunk moves of `--migrate`, each a resharding
that copies the whole collection. Pure."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from zonectl.forecast.report import CollectionMoveForecast, Forecast
from zonectl.plan.plan import Plan

# The manual (reference/command/moveCollection): "moveCollection has a 5 minute minimum
# duration"; it is built on resharding, whose clone copies every document to the recipient.
# Modelled as that floor plus the bytes at the pair's copy rate of a chunk migration (a
# guess: no source gives the clone rate of resharding against that of a chunk migration),
# and at least the median length of the runs config.changelog recorded
# (`CostModel.move_collection_seconds`, learned in zonectl.forecast.learn).


@dataclass(frozen=True)
class CollectionMove:
    ns: str
    from_shard: str
    to_shard: str
    bytes: int | None  # None: the plan could not size it (collStats did not answer)


def moves_of(plan: Plan) -> list[CollectionMove]:
    """The plan's moveCollection ops, in the order apply runs them."""
    return [
        CollectionMove(r.ns, r.from_shard, r.to_shard, op.impact.bytes if op.impact else None)
        for op in plan.ops
        if (r := op.relocation()) is not None
    ]


def with_collection_moves(forecast: Forecast, moves: Sequence[CollectionMove]) -> Forecast:
    """`forecast` with the moves counted: one at a time (MongoDB runs a single moveCollection
    at once), in `apply --migrate`'s one queue (forecast/eager.py: first, alongside the
    chunk migrations, which they neither wait for nor hold up), and alongside the balancer,
    which never moves an unsharded collection."""
    if not moves:
        return forecast
    cost = forecast.assumptions.cost
    timed = tuple(
        CollectionMoveForecast(
            m.ns,
            m.from_shard,
            m.to_shard,
            m.bytes,
            cost.move_collection_seconds(m.from_shard, m.to_shard, m.bytes or 0),
        )
        for m in moves
    )
    total = sum(t.seconds for t in timed)
    balancer_s, span = forecast.balancer_s, forecast.balancer_range
    if span is not None:  # the range too waits for the moveCollections
        span = (
            None
            if span.high_s <= total
            else dataclasses.replace(span, low_s=max(span.low_s, total))
        )
    return dataclasses.replace(
        forecast,
        collections=timed,
        eager_s=max(forecast.eager_s, total),
        balancer_s=None if balancer_s is None else max(balancer_s, total),
        balancer_range=span,
    )
