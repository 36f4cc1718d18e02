"""spread_estimates against its earlier, plainer form (kept here as the reference, fit_total
too): the same sizes and the same count of shaping chunks over generated namespaces, each
with its own sample or drawing on the pooled one, one estimate per shard (no shuffle) or
many."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.size_spread import (
    MIN_SAMPLE,
    _seed,
    fit_one,
    spread_estimates,
    tilt,
)

MIB = 1024 * 1024
SHARDS = ["s0", "s1", "s2"]


def reference_fit_total(sizes: Sequence[float], total: int, ceiling: float) -> list[int]:
    """fit_total as it was."""
    out = list(sizes)
    for _ in range(len(out)):
        gap = total - sum(out)
        # growing: only those below the ceiling; shrinking: every one
        free = [i for i, v in enumerate(out) if v < ceiling or gap < 0]
        room = sum(out[i] for i in free)
        if abs(gap) < 1 or room <= 0:
            break
        grow = 1 + gap / room
        for i in free:
            out[i] = min(ceiling, out[i] * grow)
    gap = total - sum(out)
    headroom = sum(ceiling - v for v in out)
    if gap >= 1 and headroom > 0:  # zeros cannot grow by scaling: by their headroom then
        out = [v + gap * (ceiling - v) / headroom for v in out]
    whole = [int(v) for v in out]
    if whole and abs(sum(out) - total) < 1:  # the bytes lost to rounding, on the smallest
        small = min(range(len(whole)), key=lambda i: whole[i])
        whole[small] += total - sum(whole)
    return whole


def reference_draw(sample: Sequence[float], n: int, seed: int) -> list[float]:
    """draw_factors as it was: sort, tilt, pick the quantiles, always shuffle."""
    ranked = sorted(sample)
    weights = tilt(ranked, 1.0)
    drawn: list[float] = []
    i, cumulative = 0, weights[0]
    for j in range(n):
        u = (j + 0.5) / n
        while cumulative < u and i < len(ranked) - 1:
            i += 1
            cumulative += weights[i]
        drawn.append(ranked[i])
    random.Random(seed).shuffle(drawn)
    return drawn


def reference_spread(colls: Sequence[NamespaceChunks]) -> tuple[list[NamespaceChunks], int]:
    """spread_estimates as it was, a generator per draw and dataclasses.replace per namespace."""
    pooled = [m for c in colls for m in c.samples if m[1] > 0]
    pooled_from = [k for k, d in enumerate(colls) if d.samples]
    shaped: set[int] = set()
    used_pool = False
    out: list[NamespaceChunks] = []
    for n, c in enumerate(colls):
        own = [m for m in c.samples if m[1] > 0]
        sample = own if len(own) >= MIN_SAMPLE else pooled if len(pooled) >= MIN_SAMPLE else []
        largest = max((size for size, _ in sample), default=0)
        slots = sorted(c.estimated)
        if not sample or not slots or not largest:
            out.append(c)
            continue
        if len(own) >= MIN_SAMPLE:
            shaped.add(n)
        else:
            used_pool = True
        by_shard: dict[str, list[int]] = {}
        for i in slots:
            by_shard.setdefault(c.shards[i], []).append(i)
        sizes = list(c.sizes)
        ratios = [size / avg for size, avg in sample]
        for shard, group in sorted(by_shard.items()):
            factors = reference_draw(ratios, len(group), _seed(c.ns, shard))
            average = [c.sizes[i] for i in group]
            ceiling = max(largest, *average)
            drawn = [min(ceiling, a * f) for a, f in zip(average, factors, strict=True)]
            for i, size in zip(
                group, reference_fit_total(drawn, sum(average), ceiling), strict=True
            ):
                sizes[i] = size
        out.append(dataclasses.replace(c, sizes=sizes))
    if used_pool:
        shaped.update(pooled_from)
    return out, sum(len(colls[k].samples) for k in shaped)


@st.composite
def namespace(draw: st.DrawFn, ns: str) -> NamespaceChunks:
    average = {s: draw(st.integers(1, 64)) * MIB for s in SHARDS}
    n = draw(st.integers(1, 12))
    shards = [draw(st.sampled_from(SHARDS)) for _ in range(n)]
    sizes, estimated, samples = [], set(), []
    for i, shard in enumerate(shards):
        if draw(st.booleans()):
            size = draw(st.integers(0, 128)) * MIB
            samples.append((size, average[shard]))
        else:
            size = average[shard]
            estimated.add(i)
        sizes.append(size)
    return NamespaceChunks(ns, shards, sizes, ["z"] * n, estimated=estimated, samples=samples)


_many = st.integers(1, 6).flatmap(
    lambda k: st.tuples(*(namespace(f"db.c{j}") for j in range(k))).map(list)
)


@settings(max_examples=300, deadline=None)
@given(_many)
def test_spread_matches_the_reference(colls: list[NamespaceChunks]) -> None:
    out, shaped = spread_estimates(colls)
    ref, ref_shaped = reference_spread(colls)
    assert shaped == ref_shaped
    assert out == ref


_sizes = st.one_of(
    st.integers(0, 300 * MIB),
    st.floats(0, 300 * MIB, allow_nan=False),
    st.sampled_from([0, 0.0, 0.4, 1, 1.5, 64 * MIB, 64.0 * MIB]),
)


@settings(max_examples=1000, deadline=None)
@given(_sizes, st.integers(0, 300 * MIB), _sizes)
def test_one_size_fits_as_the_reference(size: float, total: int, ceiling: float) -> None:
    """A shard's single estimate, fitted alone (fit_one), as fit_total fits a list of one;
    sizes above, below and at the ceiling, zeros, fractions, ints and floats."""
    want = reference_fit_total([size], total, ceiling)
    got = fit_one(size, total, ceiling)
    assert (type(got), got) == (type(want[0]), want[0])
