"""Copy rates and byte sizes as people write them: `40MiB/s`, `1.5GB/s`, `64MiB`; and
their display. A bad value raises ValueError with the accepted forms."""

from __future__ import annotations

import re

_UNITS = {
    "": 1,
    "b": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)?\s*$", re.IGNORECASE)
_RATE = re.compile(r"^\s*(.+?)\s*/\s*s(?:ec)?\s*$", re.IGNORECASE)

DEFAULT_COPY_RATE = 64 * 1024**2  # bytes per second, assumed when nothing was learned


def parse_size(text: str) -> int:
    """Bytes from `64MiB`, `1.5GB`, `1024`; ValueError otherwise (negative included)."""
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a size like 64MiB, 1.5GB or 1048576")
    unit = (match.group(2) or "").lower()
    return int(float(match.group(1)) * _UNITS[unit])


def parse_rate(text: str) -> float:
    """Bytes per second from `40MiB/s` (or a bare `40MiB`); must be above zero."""
    match = _RATE.match(text)
    size_text = match.group(1) if match else text
    try:
        value = parse_size(size_text)
    except ValueError:
        raise ValueError(
            f"{text!r} is not a copy rate like 40MiB/s, 100MB/s or 1GiB/s (positive)"
        ) from None
    if value <= 0:
        raise ValueError(f"{text!r}: a copy rate must be above zero")
    return float(value)


def format_bytes(n: float) -> str:
    """`72.0 GiB`, `512.0 MiB`, `0 B`."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def format_rate(bytes_per_s: float) -> str:
    return f"{format_bytes(bytes_per_s)}/s"


def format_duration(seconds: float) -> str:
    """`2d 04h10m`, `3h05m`, `12m30s`, `45s`."""
    s = round(seconds)
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    if days:
        return f"{days}d {hours:02d}h{minutes:02d}m"
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{s:02d}s"
    return f"{s}s"
