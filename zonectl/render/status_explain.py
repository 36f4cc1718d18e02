"""Each sharded namespace's explain state and first reason in status's views: the text
line and the JSON field (the page's: zonectl/render/html/explained.py). zonectl explain
gives every reason, its fix and the ETA (docs/explain.md)."""

from __future__ import annotations

from typing import Any

from zonectl.explain.reasons import Explanation


def explain_line(found: Explanation | None) -> str | None:
    """`explain: stuck, balancer-off: the balancer is off ...`; None when not sharded."""
    if found is None:
        return None
    first = found.first
    if first is None:
        return f"  explain: {found.state}"
    code = f"{first.code} (unknown)" if first.unknown else first.code
    return f"  explain: {found.state}, {code}: {first.message}"


def explain_json(found: Explanation | None) -> dict[str, Any] | None:
    """{state, reason: {code, message[, unknown]} | null}; null when not sharded."""
    if found is None:
        return None
    first = found.first
    reason: dict[str, Any] | None = None
    if first is not None:
        reason = {"code": first.code, "message": first.message}
        if first.unknown:
            reason["unknown"] = True
    return {"state": found.state, "reason": reason}
