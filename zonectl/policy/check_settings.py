"""Checks on balancer settings the schema cannot express: each day-of-week window's
times are "HH:MM" and differ. MongoDB accepts a malformed window at write time and then
fails every settings refresh, silently halting balancing (reference balancer-settings §1.4,
§9.1), so zonectl refuses it offline. Two warnings where MongoDB accepts what is likely a
mistake: `activeWindow` beside day-of-week windows (8.3 ignores it) and an entry repeated."""

from __future__ import annotations

import re
from typing import Any

from zonectl.diagnostics import Diagnostic, Position, Severity
from zonectl.policy.schema import BalancerModel
from zonectl.policy.tree import Document

_HHMM = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


def check_day_windows(balancer: BalancerModel, doc: Document) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    # A field of the settings table (schema.py builds it from the row): typed as Any there.
    windows: list[Any] = getattr(balancer, "activeWindowDOW", None) or []
    for index, window in enumerate(windows):
        path = ("balancer", "activeWindowDOW", index)
        bad = False
        for name in ("start", "stop"):
            text = getattr(window, name)
            if not _HHMM.match(text):
                bad = True
                message = f'activeWindowDOW[{index}].{name} "{text}" is not a time of day "HH:MM"'
                where = doc.position((*path, name))
                problems.append(_error("ZP501", where, message, 'e.g. "09:00"'))
        if not bad and _minutes(window.start) == _minutes(window.stop):
            message = (
                f"activeWindowDOW[{index}] ({window.day}) starts and stops at "
                f'"{window.start}": the window is empty'
            )
            hint = "MongoDB refuses start == stop; drop the entry or widen it"
            problems.append(_error("ZP502", doc.position(path), message, hint))
    problems += _repeated(windows, doc)
    if windows and "activeWindow" in balancer.model_fields_set and balancer.activeWindow:
        # balancer_configuration.cpp (8.3) `isTimeInBalancingWindow`: a non-empty
        # activeWindowDOW is used alone, activeWindow is neither read nor validated; the
        # 8.3 config.settings validator accepts both fields (config_settings_schema.js).
        message = (
            "activeWindow is set beside activeWindowDOW: MongoDB 8.3+ balances only in the "
            "day-of-week windows and ignores activeWindow"
        )
        hint = "drop activeWindow (or set it to null), or add its hours as day-of-week windows"
        where = doc.position(("balancer", "activeWindow"))
        problems.append(Diagnostic("ZP504", Severity.WARNING, where, message, hint))
    return problems


def _repeated(windows: list[Any], doc: Document) -> list[Diagnostic]:
    """An entry equal to an earlier one: MongoDB stores and checks both (each entry is
    tested on its own, balancer_configuration.cpp), so it changes nothing but is likely a
    copy-paste slip."""
    problems: list[Diagnostic] = []
    seen: dict[tuple[str, int, int], int] = {}
    for index, w in enumerate(windows):
        if not (_HHMM.match(w.start) and _HHMM.match(w.stop)):
            continue
        same = (w.day, _minutes(w.start), _minutes(w.stop))
        if same in seen:
            message = (
                f"activeWindowDOW[{index}] repeats activeWindowDOW[{seen[same]}] "
                f"({w.day} {w.start}-{w.stop}): MongoDB accepts it and it changes nothing"
            )
            where = doc.position(("balancer", "activeWindowDOW", index))
            problems.append(Diagnostic("ZP505", Severity.WARNING, where, message, "drop it"))
        else:
            seen[same] = index
    return problems


def _minutes(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def _error(code: str, where: Position, message: str, hint: str) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, where, message, hint)
