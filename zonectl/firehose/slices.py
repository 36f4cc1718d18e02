"""The boundary of a collection-per-period window as the wall time the slice names use: the
newest `keep` slices start at or after it. The same tick arithmetic as firehose windows."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from zonectl.firehose.boundary import window_boundary
from zonectl.model.desired import CollectionPolicy, Firehose, Slices
from zonectl.time_zones import load_time_zone


def slice_boundary(slices: Slices, now: dt.datetime) -> dt.datetime:
    """The `keep`-th most recent tick at or before `now`, as naive wall time in the
    window's time zone (slice names carry wall time: events_20261122 is that local day)."""
    as_window = Firehose("", "date", slices.schedule, slices.timezone, slices.keep, slices.hot)
    instant = window_boundary(as_window, now)
    try:
        local = instant.astimezone(load_time_zone(slices.timezone))
    except ValueError:  # the policy check refuses the zone; the instant as it is meanwhile
        local = instant
    return local.replace(tzinfo=None)


def slice_boundaries(
    patterns: Mapping[str, CollectionPolicy], now: dt.datetime
) -> dict[str, dt.datetime]:
    """template -> its boundary, for every collection-per-period entry."""
    return {
        template: slice_boundary(cp.slices, now)
        for template, cp in patterns.items()
        if cp.slices is not None
    }
