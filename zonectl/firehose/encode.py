"""Encode a window boundary instant as the shard-key value of a firehose's `type`."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bson import Int64, ObjectId

from zonectl.model.desired import FirehoseType

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def encode_boundary(instant: dt.datetime, type: FirehoseType) -> Any:
    """The BSON value of the shard-key field at `instant`.

    * date: an aware UTC datetime cut to milliseconds, as a BSON date stores it, so the
      bound compares equal to what the config server later returns.
    * objectId: `ObjectId.from_datetime`, the smallest ObjectId of that second (timestamp
      bytes, then zeros). An ObjectId's leading 4 bytes are its creation second, big-endian,
      and ObjectIds compare bytewise, so every id made at or after the boundary second is
      >= it and every id made before is < it: exactly [boundary, ...) by creation time.
      Cron ticks fall on whole seconds, so the truncation to the second loses nothing.
    * epochSeconds: an int (Int64 beyond the int32 range, as a driver would store it).
    * epochMillis: an Int64 (NumberLong), as milliseconds since the epoch are stored.
    """
    utc = _utc(instant)
    if type == "date":
        return utc.replace(microsecond=utc.microsecond // 1000 * 1000)
    if type == "objectId":
        return ObjectId.from_datetime(utc)
    if type == "epochSeconds":
        seconds = (utc - _EPOCH) // dt.timedelta(seconds=1)
        return seconds if _INT32_MIN <= seconds <= _INT32_MAX else Int64(seconds)
    if type == "epochMillis":
        return Int64((utc - _EPOCH) // dt.timedelta(milliseconds=1))
    raise ValueError(
        f"unknown firehose type {type!r}; expected date, objectId, epochSeconds or epochMillis"
    )


def _utc(instant: dt.datetime) -> dt.datetime:
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise ValueError(f"instant {instant.isoformat()} has no time zone; pass an aware datetime")
    return instant.astimezone(dt.UTC)
