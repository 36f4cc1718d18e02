"""Doctor's report as text (one line per check, the fix under it) and as versioned JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence

from zonectl.doctor.facts import Check, Status
from zonectl.render.inert import terminal

FORMAT_VERSION = 1


def summary(checks: Sequence[Check]) -> str:
    counts = {s: sum(1 for c in checks if c.status is s) for s in Status}
    return ", ".join(f"{counts[s]} {s.value}" for s in Status)


def render_text(checks: Sequence[Check], title: str | None = None) -> str:
    width = max((len(c.name) for c in checks), default=0)
    lines = [title] if title else []
    for c in checks:
        lines.append(f"{c.status.value:<4}  {c.name:<{width}}  {c.detail}")
        if c.fix and c.status is not Status.OK:
            lines.append(f"{'':<4}  {'':<{width}}  fix: {c.fix}")
    lines.append(summary(checks))
    # Details quote names and server messages: every line shown inert.
    return "".join(f"{terminal(line)}\n" for line in lines)


def render_json(checks: Sequence[Check], *, uri: str, passed: bool, probe: bool) -> str:
    doc = {
        "format_version": FORMAT_VERSION,
        "uri": uri,
        "ok": passed,
        "probe": probe,
        "checks": [
            {"name": c.name, "status": c.status.value, "detail": c.detail, "fix": c.fix}
            for c in checks
        ],
    }
    return json.dumps(doc, indent=2) + "\n"
