"""A warning the application layer returns instead of printing it: the message and its
detail lines, shown by the command (`zonectl.cli.common.warn`) as `zonectl: warning: ...`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Notice:
    message: str
    details: tuple[str, ...] = ()
