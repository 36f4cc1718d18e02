"""Helpers for the metrics tests: parse an exposition text into {(name, labels): value},
find promtool, and build the firehose cluster in a known state."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

Key = tuple[str, frozenset[tuple[str, str]]]

_LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def samples(text: str) -> dict[Key, float]:
    """Every sample line of an exposition text; fails on a line that is not one."""
    found: dict[Key, float] = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = _LINE.match(line)
        assert m is not None, f"not a sample line: {line!r}"
        labels = frozenset(_LABEL.findall(m.group(2) or ""))
        found[(m.group(1), labels)] = float(m.group(3))
    return found


def names(text: str) -> set[str]:
    return {name for name, _ in samples(text)}


def value(text: str, name: str, **labels: str) -> float | None:
    return samples(text).get((name, frozenset(labels.items())))


def promtool() -> str | None:
    """ZONECTL_PROMTOOL (set by .ci/run), else promtool on PATH."""
    path = os.environ.get("ZONECTL_PROMTOOL") or shutil.which("promtool")
    return path if path and Path(path).exists() else None
