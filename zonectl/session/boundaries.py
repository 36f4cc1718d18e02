"""The firehose boundaries of a policy at an instant (pure): what plan, apply, rotate and
analyze place each window at, and when the plan made from them goes stale."""

from __future__ import annotations

import datetime as dt
from typing import Any

from zonectl.model.desired import DesiredState


def window_boundaries(
    desired: DesiredState, at: dt.datetime
) -> tuple[dict[str, Any], dt.datetime | None]:
    """Each firehose namespace's boundary value at `at`, and the next tick of any window
    (a window plan is stale after it)."""
    from zonectl.firehose import boundary_value, next_tick

    boundaries: dict[str, Any] = {}
    ticks: list[dt.datetime] = []
    for ns, cp in sorted(desired.collections.items()):
        if cp.firehose is not None:
            boundaries[ns] = boundary_value(cp.firehose, at)
            ticks.append(next_tick(cp.firehose, at))
    return boundaries, min(ticks) if ticks else None
