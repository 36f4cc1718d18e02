"""The result: a collection's state, its reasons (stable codes, a message with the numbers,
a fix) and the forecast's ETA. docs/explain.md documents every code."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

FORMAT_VERSION = 1  # of the JSON document; a change that breaks a reader bumps it

BALANCED = "balanced"  # nothing to move
MOVING = "moving"  # the balancer moves it in its coming rounds
WAITING = "waiting"  # it will, but not now (window closed, a DDL or defragmentation first)
STUCK = "stuck"  # nothing moves it without a person
STATES = (BALANCED, MOVING, WAITING, STUCK)

CODES = (
    "balancer-off",
    "outside-window",
    "collection-balancing-off",
    "migrations-not-allowed",
    "below-threshold",
    "jumbo",
    "no-recipient",
    "zone-violation",
    "chunks-imbalance",
    "draining",
    "defragmenting",
    "migration-failing",
    "range-deletions-pending",
    "ddl-in-progress",
)


@dataclass(frozen=True)
class Reason:
    code: str
    message: str
    fix: str
    unknown: bool = False  # a fact it needs could not be read; the message names it

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message, "fix": self.fix}
        if self.unknown:
            out["unknown"] = True
        return out


@dataclass(frozen=True)
class Explanation:
    ns: str
    state: str
    reasons: tuple[Reason, ...] = ()
    eta: dt.datetime | None = None  # when the forecast has its moves done (moving only)
    eta_note: str = ""  # why there is none, where it moves

    @property
    def first(self) -> Reason | None:
        return self.reasons[0] if self.reasons else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "ns": self.ns,
            "state": self.state,
            "reasons": [r.as_dict() for r in self.reasons],
            "eta": None if self.eta is None else iso(self.eta),
        }


@dataclass(frozen=True)
class Explanations:
    at: dt.datetime
    collections: tuple[Explanation, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "at": iso(self.at),
            "collections": [c.as_dict() for c in self.collections],
        }


def iso(instant: dt.datetime) -> str:
    return instant.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def size(nbytes: int) -> str:
    """Bytes for a message: MiB with one decimal below 10 GiB, else GiB."""
    if abs(nbytes) >= 10 * 1024**3:
        return f"{nbytes / 1024**3:.1f} GiB"
    return f"{nbytes / 1024**2:.1f} MiB"


def span(seconds: float) -> str:
    """A duration for a message: 3h12m, 45m, 20s."""
    s = max(0, round(seconds))
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    if days:
        return f"{days}d{hours}h"
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m" if minutes else f"{s}s"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
