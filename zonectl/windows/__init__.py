"""Firehose window arithmetic (pure): cron ticks in a policy's time zone, the rolling
boundary at a given instant, and its encoding as a shard-key value."""

from __future__ import annotations

from zonectl.windows.schedule import validate_schedule

__all__ = ["validate_schedule"]
