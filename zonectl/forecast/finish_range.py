"""How far the balancer route's finish moves when the estimated chunk sizes are off: near a
window close a few percent more bytes push the last round into the next night's window, so
the finish is bimodal and one instant would claim a confidence it does not have. Pure."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from zonectl.forecast.balancer import BalancerOutcome, NamespaceChunks
from zonectl.forecast.balancer_window import BalancerWindow

# The widest band: with fewer than two measured chunks nothing states the spread, and a
# factor 1 - band must leave the low end some bytes.
MAX_BAND = 0.5


def size_band(colls: Sequence[NamespaceChunks]) -> float:
    """How far the estimated chunk sizes may be off, both ways, from the measured sample
    itself: the estimates are drawn from the measured chunks' ratios to their shard's
    average (size_spread.py), so they are as far off as that sample's mean may be, about two
    standard errors of it (a 95 % interval of a mean): 2 s / sqrt(n), n the measured chunks
    pooled over the namespaces, s their ratios' standard deviation. A sample of like chunks
    gives a narrow band, a small or skewed one a wide one; at most MAX_BAND."""
    ratios = [size / average for c in colls for size, average in c.samples if average > 0]
    if len(ratios) < 2:
        return MAX_BAND
    return min(MAX_BAND, 2 * statistics.stdev(ratios) / math.sqrt(len(ratios)))


@dataclass(frozen=True)
class FinishRange:
    """The balancer route's finish with every estimated chunk `band` smaller (low) and
    larger (high), in seconds from now; `close` is the window's daily close (minutes of the
    local day) that one end slips past."""

    low_s: float
    high_s: float
    close: int
    band: float


def scaled(colls: Sequence[NamespaceChunks], factor: float) -> list[NamespaceChunks]:
    """`colls` with every estimated chunk's bytes times `factor`; measured ones as they are."""
    return [
        dataclasses.replace(
            c,
            sizes=[
                max(1, round(size * factor)) if i in c.estimated else size
                for i, size in enumerate(c.sizes)
            ],
        )
        if c.estimated
        else c
        for c in colls
    ]


def balancer_finish_range(
    colls: Sequence[NamespaceChunks],
    simulate: Callable[[Sequence[NamespaceChunks]], BalancerOutcome],
    window: BalancerWindow | None,
    now: dt.datetime,
    finish_s: float,
) -> FinishRange | None:
    """The range of the finish if it depends on estimated sizes and the two ends of the band
    end in different nights of the window (a close, then an opening, lies between them);
    None otherwise: no window, nothing estimated, or both ends in the same window, where the
    finish moves by at most the band and the single figure says enough."""
    if window is None or not any(c.estimated for c in colls):
        return None
    band = size_band(colls)
    ends = [simulate(scaled(colls, 1 + k * band)).finished for k in (-1, 1)]
    if any(end is None for end in ends):
        return None
    low = min([(e - now).total_seconds() for e in ends if e is not None] + [finish_s])
    high = max([(e - now).total_seconds() for e in ends if e is not None] + [finish_s])
    low_at = now + dt.timedelta(seconds=low)
    # The next night's opening after the low end: the window closes first if the low end
    # lies inside it; a last round that ran past the close ends outside it.
    after = window.closes_after(low_at) if window.contains(low_at) else low_at
    if now + dt.timedelta(seconds=high) < window.next_open(after):
        return None
    return FinishRange(low, high, window.close_before(after), band)
