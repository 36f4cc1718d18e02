"""Views of a time-to-compliance forecast: text lines, a markdown section, a JSON dict."""

from __future__ import annotations

import datetime as dt
from typing import Any

from zonectl.forecast.report import Forecast
from zonectl.forecast.units import format_bytes, format_duration, format_rate
from zonectl.render.mermaid import burndown_mermaid


def _when(seconds: float | None, now: dt.datetime, why: str = "") -> str:
    if seconds is None:
        return f"never ({why})" if why else "never"
    at = (now + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M UTC")
    return f"{format_duration(seconds)} (at {at})"


def assumed_text(f: Forecast) -> str:
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


def render_forecast_text(f: Forecast) -> str:
    if not f.namespaces:
        return "Forecast: nothing to move; every chunk is in its zone.\n"
    lines = [
        f"Forecast: {f.chunks} chunk(s), {format_bytes(f.bytes)} to move "
        f"(assumed: {assumed_text(f)})"
    ]
    for n in f.namespaces:
        lines.append(
            f"  {n.ns}: {n.chunks} chunk(s), {format_bytes(n.bytes)}; "
            f"--migrate {_when(n.eager_s, f.now)}; "
            f"balancer {_when(n.balancer_s, f.now, n.why_not)}"
        )
    lines.append(f"  total by --migrate --parallel {f.assumptions.parallel}: "
                 f"{_when(f.eager_s, f.now)}")  # fmt: skip
    lines.append(f"  total by the balancer: {_when(f.balancer_s, f.now, 'see above')}")
    for b in f.backlog:
        drained = b.balancer_drained.strftime("%Y-%m-%d %H:%M UTC") if b.balancer_drained else "-"
        lines.append(
            f"  backlog on {b.shard}: {b.chunks} chunk(s), {format_bytes(b.bytes)} belong "
            f"elsewhere; drained by the balancer at {drained}, by --migrate in "
            f"{format_duration(b.eager_drained_s)}"
        )
    return "\n".join(lines) + "\n"


def render_forecast_markdown(f: Forecast) -> str:
    out = ["", "### Forecast", "", f"Assumed: {assumed_text(f)}.", ""]
    if not f.namespaces:
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
    out.append(
        f"| **total** | {f.chunks} | {format_bytes(f.bytes)} | {_when(f.eager_s, f.now)} | "
        f"{_when(f.balancer_s, f.now, 'see above')} |"
    )
    return "\n".join([*out, "", *burndown_mermaid(f)])


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
