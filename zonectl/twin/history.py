"""The migration history a twin carries, so the forecast on the twin learns what it learns
on the cluster: config.changelog entries cut to what the learner reads (what, ns, time and
the step timings, bounds, shards and counts of `details`); never `server`, `clientAddr` or
an `_id`, which name hosts."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

WHATS = frozenset(
    {
        "moveChunk.start",
        "moveChunk.from",
        "moveChunk.commit",
        "moveChunk.error",
        "resharding.coordinator.transition",
    }
)
_DETAILS = frozenset({"min", "max", "from", "to", "note", "counts", "reshardingUUID", "newState"})
LIMIT = 2000  # as many as the forecast reads (mongo/changelog_read.py HISTORY_LIMIT)


def sanitize(entry: Mapping[str, Any]) -> dict[str, Any] | None:
    """The parts of one changelog entry the learner uses, or None for other entries."""
    if entry.get("what") not in WHATS:
        return None
    details = entry.get("details")
    kept: dict[str, Any] = {}
    if isinstance(details, Mapping):
        for key, value in details.items():
            if key in _DETAILS or (isinstance(key, str) and key.startswith("step ")):
                kept[key] = value
    out = {"what": entry["what"], "ns": entry.get("ns"), "time": entry.get("time")}
    out["details"] = kept
    return out


def newest(entries: Iterable[Mapping[str, Any]], limit: int = LIMIT) -> list[dict[str, Any]]:
    """The newest `limit` sanitized migration entries, oldest first."""
    kept = [e for e in map(sanitize, entries) if e is not None]
    kept.sort(key=lambda e: utc(e.get("time")) or _EPOCH)
    return kept[-limit:]


def utc(value: Any) -> dt.datetime | None:
    """A changelog time as an aware UTC datetime (None when it is not a date)."""
    if not isinstance(value, dt.datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
