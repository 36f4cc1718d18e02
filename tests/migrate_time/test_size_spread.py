"""The forecast's spread of estimated chunk sizes (zonectl.forecast.size_spread), over
generated collections: what it keeps (each shard's bytes, the measured chunks, the same
answer every run) and what it bounds (no estimate above the largest chunk measured)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.size_spread import MIN_SAMPLE, spread_estimates

MIB = 1024 * 1024
SHARDS = ["s0", "s1", "s2"]


@st.composite
def collections(draw: st.DrawFn) -> NamespaceChunks:
    """Chunks on three shards, each estimated at its shard's average or measured."""
    average = {s: draw(st.integers(1, 128)) * MIB for s in SHARDS}
    n = draw(st.integers(1, 60))
    shards = [draw(st.sampled_from(SHARDS)) for _ in range(n)]
    measured = [draw(st.booleans()) for _ in range(n)]
    sizes, estimated, samples = [], set(), []
    for i, (shard, m) in enumerate(zip(shards, measured, strict=True)):
        if m:
            size = draw(st.integers(0, 256)) * MIB
            samples.append((size, average[shard]))
        else:
            size = average[shard]
            estimated.add(i)
        sizes.append(size)
    return NamespaceChunks("db.c", shards, sizes, ["z"] * n, estimated=estimated, samples=samples)


@settings(max_examples=200, deadline=None)
@given(c=collections())
def test_estimates_keep_each_shards_bytes_and_the_measured_sizes_and_stay_bounded(
    c: NamespaceChunks,
) -> None:
    (out,), shaped = spread_estimates([c])
    assert spread_estimates([c]) == ([out], shaped)  # the same every run
    measured = [i for i in range(len(c.sizes)) if i not in c.estimated]
    assert [out.sizes[i] for i in measured] == [c.sizes[i] for i in measured]
    if shaped == 0:
        assert out.sizes == c.sizes
        assert (
            len(c.samples) < MIN_SAMPLE or not c.estimated or not any(size for size, _ in c.samples)
        )
        return
    assert shaped == len(c.samples)
    largest = max(size for size, _ in c.samples)
    for shard in SHARDS:
        group = [i for i in sorted(c.estimated) if c.shards[i] == shard]
        assert sum(out.sizes[i] for i in group) == sum(c.sizes[i] for i in group)
        for i in group:  # the rounding remainder (< 1 byte per chunk) may land on one
            assert 0 <= out.sizes[i] <= max(largest, c.sizes[i]) + len(group)


def test_a_skewed_sample_spreads_the_estimates_and_a_uniform_one_keeps_the_average() -> None:
    shards = ["s0"] * 40
    skewed = [(m * MIB, 64 * MIB) for m in (4, 8, 128, 116)]
    for samples, spread in ((skewed, True), ([(64 * MIB, 64 * MIB)] * 4, False)):
        c = NamespaceChunks(
            "db.c",
            shards,
            [64 * MIB] * 40,
            ["z"] * 40,
            estimated=set(range(40)),
            samples=samples,
        )
        (out,), _ = spread_estimates([c])
        assert sum(out.sizes) == 40 * 64 * MIB
        assert (max(out.sizes) - min(out.sizes) > 64 * MIB) is spread


def test_a_sample_of_only_large_chunks_still_keeps_each_shards_bytes() -> None:
    """Every measured chunk twice its shard's average: all draws are 2x, clipped at the
    largest measured (20 MiB) above s1's 15 MiB average, so the estimates shrink to fit."""
    c = NamespaceChunks(
        "db.c",
        ["s0"] * 4 + ["s1"] * 5,
        [20 * MIB] * 4 + [15 * MIB] * 5,
        ["z"] * 9,
        estimated=set(range(4, 9)),
        samples=[(20 * MIB, 10 * MIB)] * 4,
    )
    (out,), shaped = spread_estimates([c])
    assert shaped == 4
    assert out.sizes[:4] == c.sizes[:4]
    assert sum(out.sizes[4:]) == 5 * 15 * MIB
