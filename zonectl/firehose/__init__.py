"""Firehose window arithmetic (pure): cron ticks in a policy's time zone, the rolling
boundary at a given instant, and its encoding as a shard-key value."""

from __future__ import annotations

from zonectl.firehose.boundary import boundary_value, next_tick, window_boundary
from zonectl.firehose.encode import encode_boundary
from zonectl.firehose.instant import parse_instant
from zonectl.firehose.schedule import validate_schedule

__all__ = [
    "boundary_value",
    "encode_boundary",
    "next_tick",
    "parse_instant",
    "validate_schedule",
    "window_boundary",
]
