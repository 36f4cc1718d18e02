"""Bytes left over time for one route to compliance (the balancer, `--migrate`): a
by-product of the simulations' commits, thinned to a few hundred points for a chart."""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Iterable
from dataclasses import dataclass

_SIZE = operator.itemgetter(1)  # of a commit: (seconds, bytes)

MAX_POINTS = 240  # enough for a smooth line in a chart a few hundred pixels wide


@dataclass(frozen=True)
class BurnDown:
    route: str  # "balancer" or "migrate"
    points: tuple[tuple[float, int], ...]  # (seconds from now, bytes still to move), ascending

    @property
    def seconds(self) -> float:
        return self.points[-1][0] if self.points else 0.0

    def left_at(self, seconds: float) -> int:
        """Bytes still to move `seconds` from now (the last point at or before it)."""
        i = bisect.bisect_right([p[0] for p in self.points], seconds) - 1
        return self.points[max(i, 0)][1] if self.points else 0


def make_burndown(
    route: str, total: int, commits: Iterable[tuple[float, int]], *, max_points: int = MAX_POINTS
) -> BurnDown:
    """From `total` bytes at 0 s, each commit (seconds, bytes) lowers what is left. More
    commits than `max_points` keep every k-th one and the last, so the curve's ends and
    shape stay exact at the kept instants."""
    ordered = sorted(commits)
    points = [(0.0, total)]
    # what is left after each commit (accumulate: the running total in one C loop)
    lefts = itertools.accumulate(map(_SIZE, ordered), operator.sub, initial=total)
    next(lefts)  # the total itself, before any commit
    steps = [(seconds, max(left, 0)) for (seconds, _), left in zip(ordered, lefts, strict=True)]
    if len(steps) > max_points:
        k = -(-len(steps) // max_points)  # ceil: at most max_points kept (+ the last)
        kept = steps[k - 1 :: k]
        if kept[-1] != steps[-1]:
            kept.append(steps[-1])
        steps = kept
    points += steps
    return BurnDown(route, tuple(points))
