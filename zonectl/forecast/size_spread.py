"""Chunk sizes that were estimated (their shard's average) spread like the measured sample:
a balancer round lasts as long as its largest migration, so chunks all of average size make
every round too short. Pure: the sample comes with each NamespaceChunks (forecast_read)."""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Sequence

from zonectl.forecast.balancer import NamespaceChunks

# Fewer measured chunks than this say little about the spread: a namespace with fewer uses
# every namespace's sample pooled, and with fewer in the pool the estimates stay averages.
MIN_SAMPLE = 4


def spread_estimates(colls: Sequence[NamespaceChunks]) -> tuple[list[NamespaceChunks], int]:
    """Each namespace's estimated sizes replaced by its shard average times a factor drawn
    from the measured chunks' ratios (measured bytes over the same average): its own sample
    where it has MIN_SAMPLE, else every namespace's pooled. Per shard the estimates keep
    their total (the statistics' bytes), and none exceeds the sample's largest chunk (or the
    average, if larger): no round is made long, nor a migration cut at the chunk size, by a
    chunk larger than any seen. Also returns how many measured chunks shaped the estimates."""
    pooled = [m for c in colls for m in c.samples if m[1] > 0]
    pooled_from = [k for k, d in enumerate(colls) if d.samples]
    pooled_drawer = _Drawer(pooled) if len(pooled) >= MIN_SAMPLE else None
    shaped: set[int] = set()
    used_pool = False
    out: list[NamespaceChunks] = []
    for n, c in enumerate(colls):
        if not c.estimated:  # nothing to spread (whichever sample it would draw on)
            out.append(c)
            continue
        own = [m for m in c.samples if m[1] > 0]
        drawer = _Drawer(own) if len(own) >= MIN_SAMPLE else pooled_drawer
        if drawer is None or not drawer.largest:
            out.append(c)
            continue
        if len(own) >= MIN_SAMPLE:
            shaped.add(n)
        else:
            used_pool = True
        by_shard: dict[str, list[int]] = {}
        shards, before = c.shards, c.sizes
        for i in sorted(c.estimated):
            by_shard.setdefault(shards[i], []).append(i)
        sizes = list(before)
        largest = drawer.largest
        for shard, group in sorted(by_shard.items()):
            # per donor: its bytes are known (the statistics), only their split is drawn
            if len(group) == 1:  # one estimate: one draw, no shuffle, fitted alone
                (i,) = group
                a = before[i]
                ceiling = max(largest, a)
                sizes[i] = fit_one(min(ceiling, a * drawer.draw(1, c.ns, shard)[0]), a, ceiling)
                continue
            factors = drawer.draw(len(group), c.ns, shard)
            average = [before[i] for i in group]
            ceiling = max(largest, *average)
            drawn = [min(ceiling, a * f) for a, f in zip(average, factors, strict=True)]
            for i, size in zip(group, fit_total(drawn, sum(average), ceiling), strict=True):
                sizes[i] = size
        out.append(_with_sizes(c, sizes))
    if used_pool:
        shaped.update(pooled_from)
    return out, sum(len(colls[k].samples) for k in shaped)


class _Drawer:
    """One sample's ratios (measured bytes over their average), ranked and tilted once: a
    pooled sample serves every namespace without one of its own."""

    def __init__(self, sample: Sequence[tuple[int, int]]) -> None:
        self.largest = max(size for size, _ in sample)
        self.ranked = sorted(size / avg for size, avg in sample)
        self.weights = tilt(self.ranked, 1.0) if self.largest else []
        self._quantiles: dict[int, list[float]] = {}  # n -> the n draws, not shuffled yet

    def draw(self, n: int, ns: str, shard: str) -> list[float]:
        """draw_factors(self.ranked, n, _seed(ns, shard), self.weights), its quantiles
        picked once per n, the seed made only for a shuffle that moves something."""
        if n not in self._quantiles:
            self._quantiles[n] = _quantiles(self.ranked, n, self.weights)
        drawn = self._quantiles[n]
        return _shuffled(drawn, _seed(ns, shard)) if len(drawn) > 1 else list(drawn)


def fit_total(sizes: Sequence[float], total: int, ceiling: float) -> list[int]:
    """`sizes` scaled to sum to `total` in whole bytes, none above `ceiling` (those below it
    take up what the clipped ones cannot; zeros, by their headroom); as they are where
    `total` cannot fit (more than `ceiling` each)."""
    out = list(sizes)
    for _ in range(len(out)):
        gap = total - sum(out)
        # growing: only those below the ceiling; shrinking: every one
        free = [i for i, v in enumerate(out) if v < ceiling or gap < 0]
        room = sum([out[i] for i in free])
        if abs(gap) < 1 or room <= 0:
            break
        grow = 1 + gap / room
        for i in free:
            out[i] = min(ceiling, out[i] * grow)
    gap = total - sum(out)
    headroom = sum([ceiling - v for v in out])
    if gap >= 1 and headroom > 0:  # zeros cannot grow by scaling: by their headroom then
        out = [v + gap * (ceiling - v) / headroom for v in out]
    whole = [int(v) for v in out]
    if whole and abs(sum(out) - total) < 1:  # the bytes lost to rounding, on the smallest
        small = whole.index(min(whole))  # the first of the smallest
        whole[small] += total - sum(whole)
    return whole


def fit_one(size: float, total: int, ceiling: float) -> int:
    """fit_total([size], total, ceiling)[0], step for step without the lists (the same
    operations on the same numbers: tests/forecast_pure hold the two to one answer)."""
    if size < ceiling or total - size < 0:  # the one size is free to scale
        gap = total - size
        if not (abs(gap) < 1 or size <= 0):
            size = min(ceiling, size * (1 + gap / size))
    gap = total - size
    headroom = ceiling - size
    if gap >= 1 and headroom > 0:  # a zero cannot grow by scaling: by its headroom then
        size = size + gap * (ceiling - size) / headroom
    whole = int(size)
    if abs(size - total) < 1:  # the byte lost to rounding
        whole += total - whole
    return whole


def _with_sizes(c: NamespaceChunks, sizes: list[int]) -> NamespaceChunks:
    """A copy of `c` (as copy.copy makes it: its fields, shared) with `sizes`."""
    spread = object.__new__(type(c))
    spread.__dict__.update(c.__dict__)
    spread.sizes = sizes
    return spread


def _seed(ns: str, shard: str) -> int:
    """The same draws for the same namespace on every run (a plan is diffed in CI)."""
    return zlib.crc32(f"{ns}\0{shard}".encode())


def draw_factors(
    sample: Sequence[float], n: int, seed: int, weights: Sequence[float] | None = None
) -> list[float]:
    """`n` factors distributed like `sample`, of mean about 1: its values, weighted by
    exponential tilting so the weighted mean is 1 (the statistics' average is exact, a small
    sample's mean is not; tilting keeps every draw a measured value, where scaling would
    push the largest past any chunk that exists), drawn at quantiles (j + 1/2) / n, in an
    order shuffled by `seed`. `weights`: the tilt of the sorted `sample`, if known."""
    ranked = sorted(sample)
    weights = tilt(ranked, 1.0) if weights is None else weights
    return _shuffled(_quantiles(ranked, n, weights), seed)


def _quantiles(ranked: Sequence[float], n: int, weights: Sequence[float]) -> list[float]:
    """The sorted `ranked` at quantiles (j + 1/2) / n under `weights`, in order."""
    drawn: list[float] = []
    i, cumulative = 0, weights[0]
    for j in range(n):
        u = (j + 0.5) / n
        while cumulative < u and i < len(ranked) - 1:
            i += 1
            cumulative += weights[i]
        drawn.append(ranked[i])
    return drawn


def _shuffled(drawn: Sequence[float], seed: int) -> list[float]:
    """A copy of `drawn` in the order random.Random(seed).shuffle gives; a single draw (or
    none) without building the generator: shuffling it draws no number and moves nothing."""
    out = list(drawn)
    if len(out) > 1:
        random.Random(seed).shuffle(out)
    return out


def tilt(values: Sequence[float], mean: float) -> list[float]:
    """Weights w_i proportional to exp(lam * v_i), summing to 1, whose weighted mean of
    `values` is `mean` (lam by bisection); where `mean` lies outside the values, all the
    weight on the nearest end."""
    lo_v, hi_v = min(values), max(values)
    if hi_v - lo_v <= 1e-12 * max(abs(hi_v), 1.0):
        return [1.0 / len(values)] * len(values)
    if mean <= lo_v or mean >= hi_v:
        end = lo_v if mean <= lo_v else hi_v
        ends = [1.0 if v == end else 0.0 for v in values]
        return [w / sum(ends) for w in ends]

    def weights(lam: float) -> list[float]:
        top = max(lam * v for v in values)
        raw = [math.exp(lam * v - top) for v in values]
        total = sum(raw)
        return [w / total for w in raw]

    def mean_at(lam: float) -> float:
        return sum(w * v for w, v in zip(weights(lam), values, strict=True))

    span = 1.0 / (hi_v - lo_v)
    lo, hi = -span, span
    while mean_at(lo) > mean:
        lo *= 2
    while mean_at(hi) < mean:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mean_at(mid) < mean else (lo, mid)
    return weights((lo + hi) / 2)
