"""How zonectl writes a byte count in its messages (`4.0 MiB`): one formatter for the plan's
lines and the drain blockers every view shares."""

from __future__ import annotations


def format_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")
