"""The band the balancer route's finish range spans (zonectl.forecast.finish_range.size_band)
comes from the measured chunk sizes the plan took, not from a figure tuned on a benchmark:
two standard errors of the sample's mean ratio to the shard average, at most MAX_BAND."""

from __future__ import annotations

import math
import statistics

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.finish_range import MAX_BAND, size_band

MIB = 1024 * 1024


def _coll(ns: str, measured: list[int], average: int = 64 * MIB) -> NamespaceChunks:
    n = len(measured) + 4  # four more chunks, estimated at the average
    sizes = [*measured, *[average] * 4]
    estimated = set(range(len(measured), n))
    samples = [(size, average) for size in measured]
    return NamespaceChunks(ns, ["s0"] * n, sizes, ["z"] * n, estimated=estimated,
                           samples=samples)  # fmt: skip


def test_the_band_is_two_standard_errors_of_the_measured_ratios() -> None:
    measured = [m * MIB for m in (16, 32, 48, 64, 64, 80, 96, 112)]
    ratios = [m / (64 * MIB) for m in measured]
    want = 2 * statistics.stdev(ratios) / math.sqrt(len(ratios))
    assert math.isclose(size_band([_coll("a.b", measured)]), want)


def test_like_chunks_give_a_narrow_band_and_skewed_or_few_a_wide_one() -> None:
    alike = size_band([_coll("a.b", [m * MIB for m in (63, 64, 65, 64, 63, 65, 64, 64)])])
    skewed = size_band([_coll("a.b", [m * MIB for m in (1, 2, 4, 128, 128, 3, 2, 64)])])
    assert alike < 0.01 < skewed
    # more measured chunks of the same spread: a narrower band (pooled over namespaces)
    spread = [m * MIB for m in (16, 32, 48, 64, 64, 80, 96, 112)]
    one = size_band([_coll("a.b", spread)])
    two = size_band([_coll("a.b", spread), _coll("a.c", spread)])
    assert two < one
    assert size_band([_coll("a.b", [64 * MIB])]) == MAX_BAND  # one chunk states no spread
    assert size_band([_coll("a.b", [1 * MIB, 128 * MIB])]) == MAX_BAND  # capped
