"""Time zones (IANA names such as Europe/Berlin), not sharding zones: the one loader the
balancer's window, the firehose windows and metrics share, so a name fails the same way."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def load_time_zone(name: str) -> dt.tzinfo:
    """The IANA time zone `name` (`UTC` in any case is UTC); ValueError naming it when there
    is no such zone, the caller words it for its user."""
    if name.upper() == "UTC":
        return dt.UTC
    try:
        return ZoneInfo(name)
    # OSError: a directory of the tz database (`Europe`) is not a zone.
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(
            f"unknown time zone {name!r}: use an IANA name like Europe/Berlin or UTC"
        ) from None
