"""A firehose window's recent ingest: `dataSize` (estimate: true) through mongos of each of
the last PERIODS complete periods of its schedule, [tick n+1, tick n) on the window's key,
and of the window itself, [boundary, MaxKey): PERIODS + 1 commands per window, whatever its
size (mongo:src/mongo/s/commands/cluster_data_size_cmd.cpp sums the shards' answers)."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Mapping
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey
from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.firehose.encode import encode_boundary
from zonectl.firehose.schedule import ticks_at_or_before
from zonectl.model.desired import Firehose
from zonectl.model.ingest import Ingest
from zonectl.mongo.connect import Connection

PERIODS = 3  # complete periods measured: enough to smooth a day, few commands


def read_ingest(
    conn: Connection, ns: str, key: Mapping[str, Any], firehose: Firehose, now: dt.datetime
) -> Ingest | str:
    """The window's ingest, or why it cannot be read (its field does not lead the key, the
    server refuses dataSize)."""
    fields = list(key)
    if not fields or fields[0] != firehose.field:
        return f"{ns}: the firehose field {firehose.field!r} does not lead the shard key"
    ticks = list(itertools.islice(ticks_at_or_before(firehose.schedule, firehose.timezone, now),
                                  max(PERIODS + 1, firehose.keep)))  # fmt: skip
    if len(ticks) < PERIODS + 1:
        return f"{ns}: the schedule has fewer than {PERIODS + 1} ticks before now"

    def bound(instant: dt.datetime | None) -> dict[str, Any]:
        """{field: the tick, the other key fields: MinKey}; no tick: MaxKey everywhere."""
        if instant is None:
            return {f: MaxKey() for f in fields}
        value = encode_boundary(instant, firehose.type)
        return {f: value if i == 0 else MinKey() for i, f in enumerate(fields)}

    def size(lo: dt.datetime, hi: dt.datetime | None) -> int:
        command = {"dataSize": ns, "keyPattern": dict(key), "min": bound(lo), "max": bound(hi)}
        return int(conn.client.admin.command({**command, "estimate": True}).get("size") or 0)

    try:
        periods = tuple(size(ticks[i + 1], ticks[i]) for i in range(PERIODS))
        window = size(ticks[firehose.keep - 1], None)
    except OperationFailure as exc:
        name = (exc.details or {}).get("codeName") or exc.code
        return f"{ns}: dataSize refused ({name}; it needs the find action on {ns})"
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: dataSize on {ns} failed: {redact(str(exc))}") from None
    period_s = (ticks[0] - ticks[1]).total_seconds()
    return Ingest(ns, ns.split(".", 1)[0], periods, period_s, window, ticks[PERIODS])
