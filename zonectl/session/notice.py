"""A warning the session hands back instead of printing it: the message and its detail
lines, printed by the command (zonectl.cli.common.warn) where it used to print them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Notice:
    message: str
    details: tuple[str, ...] = ()
