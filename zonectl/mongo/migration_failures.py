"""The recent moveChunk outcomes of every collection, from one config.changelog query: per
collection the migrations that failed since its newest commit and the server's last
message, for zonectl explain's `migration-failing`. A refused read is a reason, never an
exception."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import redact
from zonectl.explain.facts import Failures
from zonectl.mongo.connect import Connection

Doc = Mapping[str, Any]
UNAUTHORIZED = 13
HISTORY = dt.timedelta(days=1)  # how far back the moveChunk outcomes are read
HISTORY_LIMIT = 2000  # newest entries of all collections together
CHANGELOG_PRIVILEGE = (
    "config.changelog was refused: needs find on config.changelog (clusterMonitor)"
)


def read_failures(conn: Connection, now: dt.datetime) -> tuple[dict[str, Failures], str]:
    """Per collection, its moveChunk failures since its newest commit, from one query over
    the last day's moveChunk.commit / .error / .from entries, newest first. A failed
    attempt logs moveChunk.error (`MigrationSourceManager::_cleanupOnError`) and its donor's
    moveChunk.from with note "aborted" and the errmsg (`MoveTimingHelper`); from FCV 8.3
    moveChunk.error carries the errmsg too (jstests/sharding/move_chunk_error_errmsg.js)."""
    query = {
        "what": {"$in": ["moveChunk.commit", "moveChunk.error", "moveChunk.from"]},
        "time": {"$gte": now - HISTORY},
    }
    projection = {"_id": 0, "what": 1, "ns": 1, "time": 1, "details.errmsg": 1, "details.note": 1}
    try:
        cursor = conn.client.config.changelog.find(query, projection, batch_size=HISTORY_LIMIT)
        entries = list(cursor.sort("time", -1).limit(HISTORY_LIMIT))
    except OperationFailure as exc:
        if exc.code == UNAUTHORIZED:
            return {}, CHANGELOG_PRIVILEGE
        return {}, f"reading config.changelog failed: {redact(str(exc))}"
    except PyMongoError as exc:
        return {}, f"reading config.changelog failed: {redact(str(exc))}"
    return failures_of(entries), ""


def failures_of(entries: Sequence[Doc]) -> dict[str, Failures]:
    """Newest-first entries -> per namespace the failures before its newest commit: the
    larger of its moveChunk.error and aborted moveChunk.from counts (one attempt may log
    both), the newest failure's time and the newest errmsg."""
    seen: dict[str, list[Doc]] = {}
    done: set[str] = set()
    for e in entries:
        ns = str(e.get("ns"))
        if ns in done:
            continue
        if e.get("what") == "moveChunk.commit":
            done.add(ns)
            continue
        details = e.get("details") or {}
        if e.get("what") == "moveChunk.from" and details.get("note") != "aborted":
            continue
        seen.setdefault(ns, []).append(e)
    out = {}
    for ns, failed in seen.items():
        errors = sum(1 for e in failed if e.get("what") == "moveChunk.error")
        aborted = len(failed) - errors
        message = next(
            (
                str((e.get("details") or {})["errmsg"])
                for e in failed
                if (e.get("details") or {}).get("errmsg")
            ),
            "",
        )
        last = failed[0].get("time")
        out[ns] = Failures(
            max(errors, aborted), last if isinstance(last, dt.datetime) else None, message
        )
    return out
