"""Views of a time-to-compliance forecast: text lines, a markdown section, a JSON dict."""

from __future__ import annotations

import datetime as dt
from typing import Any

from zonectl.forecast.report import CollectionMoveForecast, Forecast
from zonectl.forecast.units import format_bytes, format_duration, format_rate
from zonectl.render.summary import plural


def _when(seconds: float | None, now: dt.datetime, why: str = "") -> str:
    if seconds is None:
        return f"never ({why})" if why else "never"
    at = (now + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M UTC")
    return f"{format_duration(seconds)} (at {at})"


def _assumed(f: Forecast) -> str:
    a = f.assumptions
    window = "no window"
    if a.window is not None:
        w = a.window
        window = f"window {w.start // 60:02d}:{w.start % 60:02d}-{w.stop // 60:02d}:"
        window += f"{w.stop % 60:02d} {a.tz_name}"
    return (
        f"copy rate {format_rate(a.copy_rate)} per migration (--copy-rate), "
        f"--parallel {a.parallel}, balancer {window}"
    )


def _collection_bytes(c: CollectionMoveForecast) -> str:
    return format_bytes(c.bytes) if c.bytes is not None else "size unknown"


def _collections_total(f: Forecast) -> str:
    """ ", and 2 collections (3.1 GiB) by moveCollection", or nothing."""
    if not f.collections:
        return ""
    sized = [c.bytes for c in f.collections if c.bytes is not None]
    size = format_bytes(sum(sized)) if len(sized) == len(f.collections) else "size unknown"
    return f", and {plural(len(f.collections), 'collection')} ({size}) by moveCollection"


def render_forecast_text(f: Forecast) -> str:
    if not f.namespaces and not f.collections:
        return "Forecast: nothing to move; every chunk is in its zone.\n"
    lines = [
        f"Forecast: {plural(f.chunks, 'chunk')}, {format_bytes(f.bytes)} to move"
        f"{_collections_total(f)} (assumed: {_assumed(f)})"
    ]
    for c in f.collections:
        lines.append(
            f"  {c.ns}: moveCollection {c.from_shard or '?'} -> {c.to_shard}, "
            f"{_collection_bytes(c)}; {format_duration(c.seconds)} (at least 5m, one at a time)"
        )
    for n in f.namespaces:
        lines.append(
            f"  {n.ns}: {plural(n.chunks, 'chunk')}, {format_bytes(n.bytes)}; "
            f"--migrate {_when(n.eager_s, f.now)}; "
            f"balancer {_when(n.balancer_s, f.now, n.why_not)}"
        )
    lines.append(f"  total by --migrate --parallel {f.assumptions.parallel}: "
                 f"{_when(f.eager_s, f.now)}")  # fmt: skip
    lines.append(f"  total by the balancer: {_when(f.balancer_s, f.now, 'see above')}")
    for b in f.backlog:
        drained = b.balancer_drained.strftime("%Y-%m-%d %H:%M UTC") if b.balancer_drained else "-"
        lines.append(
            f"  backlog on {b.shard}: {plural(b.chunks, 'chunk')}, {format_bytes(b.bytes)} belong "
            f"elsewhere; drained by the balancer at {drained}, by --migrate in "
            f"{format_duration(b.eager_drained_s)}"
        )
    return "\n".join(lines) + "\n"


def render_forecast_markdown(f: Forecast) -> str:
    out = ["", "### Forecast", "", f"Assumed: {_assumed(f)}.", ""]
    if not f.namespaces and not f.collections:
        return "\n".join([*out, "Nothing to move: every chunk is in its zone.", ""])
    out += [
        "| namespace | chunks | bytes | `--migrate` | balancer |",
        "|---|---:|---:|---|---|",
    ]
    for n in f.namespaces:
        out.append(
            f"| `{n.ns}` | {n.chunks} | {format_bytes(n.bytes)} | {_when(n.eager_s, f.now)} | "
            f"{_when(n.balancer_s, f.now, n.why_not)} |"
        )
    for c in f.collections:  # apply moves them, with or without --migrate; never the balancer
        took = f"moveCollection {format_duration(c.seconds)}"
        out.append(f"| `{c.ns}` | - | {_collection_bytes(c)} | {took} | {took} |")
    out.append(
        f"| **total** | {f.chunks} | {format_bytes(f.bytes)} | {_when(f.eager_s, f.now)} | "
        f"{_when(f.balancer_s, f.now, 'see above')} |"
    )
    return "\n".join([*out, ""])


def _iso(t: dt.datetime | None) -> str | None:
    return t.isoformat() if t is not None else None


def forecast_dict(f: Forecast) -> dict[str, Any]:
    a = f.assumptions
    window = None
    if a.window is not None:
        w = a.window
        window = {
            "start": f"{w.start // 60:02d}:{w.start % 60:02d}",
            "stop": f"{w.stop // 60:02d}:{w.stop % 60:02d}",
            "timezone": a.tz_name,
        }
    return {
        "now": f.now.isoformat(),
        "assumed": {
            "copy_rate_bytes_per_s": a.copy_rate,
            "parallel": a.parallel,
            "balancer_window": window,
            "balancer_enabled": a.balancer_enabled,
        },
        "chunks": f.chunks,
        "bytes": f.bytes,
        "migrate": {"seconds": f.eager_s, "at": _iso(f.eager_at)},
        "balancer": {"seconds": f.balancer_s, "at": _iso(f.balancer_at)},
        "namespaces": [
            {
                "ns": n.ns,
                "chunks": n.chunks,
                "bytes": n.bytes,
                "migrate_seconds": n.eager_s,
                "balancer_seconds": n.balancer_s,
                "balancer_never_because": n.why_not or None,
            }
            for n in f.namespaces
        ],
        "collections": [
            {
                "ns": c.ns,
                "from_shard": c.from_shard or None,
                "to_shard": c.to_shard,
                "bytes": c.bytes,
                "seconds": c.seconds,
            }
            for c in f.collections
        ],
        "backlog": [
            {
                "shard": b.shard,
                "chunks": b.chunks,
                "bytes": b.bytes,
                "balancer_drained_at": _iso(b.balancer_drained),
                "migrate_drained_seconds": b.eager_drained_s,
            }
            for b in f.backlog
        ],
    }
