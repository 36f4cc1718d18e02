"""Parse the CLI's `--at TIME`: an ISO 8601 instant that names its offset."""

from __future__ import annotations

import datetime as dt

ACCEPTED = "2026-03-29T02:30:00Z, 2026-03-29T02:30Z, 2026-03-29T04:30:00+02:00"


def parse_instant(text: str) -> dt.datetime:
    """An aware UTC datetime from ISO 8601 text with an offset or `Z`.

    Text without an offset is refused rather than read as UTC or as the machine's zone:
    windows are evaluated in each policy's own zone, so a silently guessed offset would
    move a boundary by hours, and `--at` exists precisely to be exact.
    """
    raw = text.strip()
    if raw[-1:] == "z":
        raw = raw[:-1] + "Z"
    try:
        value = dt.datetime.fromisoformat(raw)
    except ValueError:
        raise ValueError(
            f"cannot read {text!r} as a time; use ISO 8601 with an offset, e.g. {ACCEPTED}"
        ) from None
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(
            f"time {text!r} has no offset; add 'Z' for UTC or one like '+02:00', e.g. {ACCEPTED}"
        )
    return value.astimezone(dt.UTC)
