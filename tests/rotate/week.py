"""The simulated week (issue 6 §3), shared by tests/rotate/test_week.py and
benchmarks/week_demo.py: inserts grow the top chunk of each collection every few hours,
`zonectl rotate --at` runs a few minutes after each midnight (some days skipped), and
balancer rounds run in between. Each day yields a row of what the cluster looked like."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from bson.min_key import MinKey
from rotate_kit import HOT, WRITES, Firehose, Result

from zonectl.sandbox.seed.growth import grow, instants

NAMESPACES = ("app.events", "app.clicks")
START = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)  # the seeded boundary
STEP = dt.timedelta(hours=3)  # one new chunk per collection every 3 simulated hours
RUN_AFTER_TICK = dt.timedelta(minutes=5)


@dataclass
class Placement:
    """Chunks of one collection split by the window boundary and by shard."""

    new_on_hot: int = 0  # min >= boundary, on the hot shard
    new_off_hot: int = 0
    old_on_hot: int = 0  # max <= boundary, still on the hot shard
    old_off_hot: int = 0

    @property
    def on_hot(self) -> int:
        return self.new_on_hot + self.old_on_hot

    @property
    def off_hot(self) -> int:
        return self.new_off_hot + self.old_off_hot


@dataclass
class Day:
    at: dt.datetime  # when rotate ran (or would have)
    rotated: bool  # False: the run was skipped this day
    result: Result | None
    boundary: dict[str, Any]  # per namespace, the live hot range's min on the key field
    ops: int  # updateZoneKeyRange commands the rotate sent
    rerun_writes: list[str]  # state-changing commands of a second run (must be empty)
    rounds: int  # balancer rounds until stable
    before: dict[str, Placement] = field(default_factory=dict)  # right after rotate
    after: dict[str, Placement] = field(default_factory=dict)  # after the balancer


def placement(fh: Firehose, ns: str) -> Placement:
    """Read through pymongo: config.tags for the boundary, config.chunks for placement."""
    field_name, boundary = live_boundary(fh, ns)
    p = Placement()
    for c in fh.chunks(ns):
        lo, hi, on_hot = c["min"][field_name], c["max"][field_name], c["shard"] == HOT
        if not isinstance(lo, MinKey) and _ge(lo, boundary):
            p.new_on_hot += on_hot
            p.new_off_hot += not on_hot
        elif not _gt(hi, boundary):
            p.old_on_hot += on_hot
            p.old_off_hot += not on_hot
    return p


def live_boundary(fh: Firehose, ns: str) -> tuple[str, Any]:
    hot = [lo for lo, _, zone in fh.tags(ns) if zone == "hot"]
    assert len(hot) == 1, f"{ns}: expected one hot range, got {fh.tags(ns)}"
    name = next(iter(hot[0]))
    return name, hot[0][name]


def _ge(a: Any, b: Any) -> bool:
    from zonectl.model.keys import compare

    return compare(a, b) >= 0


def _gt(a: Any, b: Any) -> bool:
    from zonectl.model.keys import compare

    return compare(a, b) > 0


def simulate(
    fh: Firehose,
    days: int = 7,
    *,
    skip: Collection[int] = (),
    rotate_args: tuple[str, ...] = ("--yes",),
    on_day: Callable[[Day], None] | None = None,
) -> list[Day]:
    """Day n (1-based) covers inserts from START + n-1 days to START + n days, then the
    rotate run at START + n days + 5 min (unless n is in `skip`), a second run an hour
    later (it must change nothing), and balancer rounds until nothing moves."""
    rows: list[Day] = []
    sb = fh.sandbox
    for n in range(1, days + 1):
        day_start, tick = START + dt.timedelta(days=n - 1), START + dt.timedelta(days=n)
        for ns in NAMESPACES:
            grow(sb, ns, instants(day_start, tick, STEP))
        at = tick + RUN_AFTER_TICK
        sb.clock.set(at)
        result, ops, rerun = None, 0, []
        if n not in skip:
            fh.sent.clear()
            result = fh.rotate("--at", _iso(at), *rotate_args)
            ops = sum(name == "updateZoneKeyRange" for name, _ in fh.sent)
            fh.sent.clear()
            again = fh.rotate("--at", _iso(at + dt.timedelta(hours=1)), *rotate_args)
            rerun = [*fh.writes()] + ([f"exit {again.code}"] if again.code else [])
            rerun += [f"stdout: {again.out.strip()}"] if again.out.strip() else []
        before = {ns: placement(fh, ns) for ns in NAMESPACES}
        rounds = sb.balancer.run_until_stable(max_rounds=400)
        row = Day(
            at=at,
            rotated=n not in skip,
            result=result,
            boundary={ns: live_boundary(fh, ns)[1] for ns in NAMESPACES},
            ops=ops,
            rerun_writes=rerun,
            rounds=rounds,
            before=before,
            after={ns: placement(fh, ns) for ns in NAMESPACES},
        )
        rows.append(row)
        if on_day is not None:
            on_day(row)
    return rows


def _iso(instant: dt.datetime) -> str:
    return instant.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["NAMESPACES", "START", "WRITES", "Day", "Placement", "placement", "simulate"]
