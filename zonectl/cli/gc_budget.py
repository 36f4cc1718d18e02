"""Fewer garbage collections while a command reads and lays out a large cluster: status and
explain of 10,000 collections build millions of objects that live until the command ends,
and CPython's collector rescans them, with everything imported, every time they have grown
by a quarter. Reference counting still frees what they drop; cycles wait a little longer."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

# A young collection every 50,000 allocations (CPython's default: 700), the older ones
# after 20 and 10 of the younger (default 10 and 10).
THRESHOLDS = (50_000, 20, 10)


@contextlib.contextmanager
def bulk_build() -> Iterator[None]:
    """The collector's thresholds raised to THRESHOLDS inside, and what exists on entry (the
    imported modules: hundreds of thousands of objects) left out of its collections;
    both restored after."""
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
