"""Read the recent migration history from config.changelog (moveChunk.* entries and the
resharding coordinator's transitions, which moveCollection writes), bounded by a count and
an age, for the forecast to learn the cluster's speed from. Read-only; a user who may not
read it gets the reason, never an exception."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import redact
from zonectl.forecast.learn import Learned, learn
from zonectl.forecast.units import DEFAULT_COPY_RATE
from zonectl.mongo.connect import Connection

HISTORY_DAYS = 30
HISTORY_LIMIT = 2000  # newest entries (about 500 migrations: four entries each)
READ_MS = 5000
_WHATS = [
    "moveChunk.start",
    "moveChunk.from",
    "moveChunk.commit",
    "moveChunk.error",
    "resharding.coordinator.transition",
]
# config.changelog is readable with `find` on the config database: clusterMonitor grants it
# (reference §2.6; `sh.status()` reads it the same way).
PRIVILEGE = "find on config.changelog (the clusterMonitor role grants it)"


@dataclass(frozen=True)
class History:
    entries: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""  # why nothing could be read


def read_migration_history(
    conn: Connection,
    now: dt.datetime,
    *,
    days: int = HISTORY_DAYS,
    limit: int = HISTORY_LIMIT,
) -> History:
    """The newest `limit` migration entries of the last `days` before `now`, newest first.

    config.changelog is capped, and we know of no index on `time` (a guess): read it
    backwards in natural (insertion, so time) order, which stops at the limit, instead of
    sorting the whole collection;
    bounded by maxTimeMS too, so a slow read leaves the rate assumed. Entries dated after
    `now` (the config server's clock ahead of ours) are read: the learner reports the skew."""
    query = {"what": {"$in": _WHATS}, "time": {"$gte": now - dt.timedelta(days=days)}}
    projection = {"_id": 0, "what": 1, "ns": 1, "time": 1, "details": 1, "shard": 1}
    try:
        cursor = conn.client.config.changelog.find(query, projection).sort("time", -1).limit(limit)
        return History(list(cursor))
    except OperationFailure as exc:
        if exc.code == 13:  # Unauthorized
            return History(error=f"not allowed to read config.changelog: needs {PRIVILEGE}")
        return History(error=f"reading config.changelog failed: {redact(str(exc))}")
    except PyMongoError as exc:
        return History(error=f"reading config.changelog failed: {redact(str(exc))}")


def read_learned(conn: Connection) -> Learned:
    """What the cluster's recent migrations teach about its speed (or, when the history
    cannot be read, why), as of this host's now."""
    now = conn.wall()
    history = read_migration_history(conn, now)
    if history.error:
        return Learned(model=None, samples=0, error=history.error)
    return learn(history.entries, now, float(DEFAULT_COPY_RATE))
