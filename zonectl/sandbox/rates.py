"""Copy rates (`40MiB/s`, `1.5GB/s`, a bare `64MiB`) and sizes (`20GiB`, bytes) as a cluster
file, a `sandbox:?copyRate=` URI and a twin write them. The sandbox's own reading, so that
nothing of the forecast it is measured against runs inside it; a bad value raises ValueError
with the accepted forms."""

from __future__ import annotations

import re

_UNITS = {"": 1, "b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4}
_UNITS |= {"kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)?\s*$", re.IGNORECASE)
_RATE = re.compile(r"^\s*(.+?)\s*/\s*s(?:ec)?\s*$", re.IGNORECASE)


def parse_rate(text: str) -> float:
    """Bytes per second from `40MiB/s` (or a bare `40MiB`); must be above zero."""
    match = _RATE.match(text)
    size = _SIZE.match(match.group(1) if match else text)
    if size is None:
        raise ValueError(f"{text!r} is not a copy rate like 40MiB/s, 100MB/s or 1GiB/s (positive)")
    value = int(float(size.group(1)) * _UNITS[(size.group(2) or "").lower()])
    if value <= 0:
        raise ValueError(f"{text!r}: a copy rate must be above zero")
    return float(value)


def parse_size(value: str | int) -> int:
    """Bytes from `20GiB`, `500MB`, `1.5TB` or a number of bytes (0 or more)."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a size like 20GiB, 500MB or a number of bytes")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{value}: a size is 0 or more bytes")
        return value
    size = _SIZE.match(value)
    if size is None:
        raise ValueError(f"{value!r} is not a size like 20GiB, 500MB or a number of bytes")
    return int(float(size.group(1)) * _UNITS[(size.group(2) or "").lower()])
