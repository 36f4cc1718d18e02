"""The forecast's per-namespace figures as a table, under the burn-down on both pages."""

from __future__ import annotations

import datetime as dt

from zonectl.forecast.report import Forecast
from zonectl.forecast.units import format_bytes, format_duration
from zonectl.render.forecast import assumed_text, balancer_total
from zonectl.render.forecast_drain import held, routes
from zonectl.render.html.markup import esc, table


def _when(seconds: float | None, now: dt.datetime, why: str = "") -> str:
    if seconds is None:
        return f"never ({why})" if why else "never"
    return (
        f"{format_duration(seconds)} (at {now + dt.timedelta(seconds=seconds):%Y-%m-%d %H:%M} UTC)"
    )


def assumptions_line(f: Forecast) -> str:
    text = f"Assumed: {assumed_text(f)}; from {f.now:%Y-%m-%d %H:%M} UTC."
    return f'<p class="meta">{esc(text)}</p>\n'


def forecast_table(f: Forecast) -> str:
    rows: list[list[object]] = [
        [
            n.ns,
            n.chunks,
            format_bytes(n.bytes),
            _when(n.eager_s, f.now),
            _when(n.balancer_s, f.now, n.why_not),
        ]
        for n in f.namespaces
    ]
    rows.append(
        [
            "total",
            f.chunks,
            format_bytes(f.bytes),
            _when(f.eager_s, f.now),
            balancer_total(f),
        ]
    )
    headers = ["namespace", "chunks", "bytes", "apply --migrate", "balancer"]
    return table(headers, rows, numeric=[1, 2], label="forecast-table")


def drain_table(f: Forecast) -> str:
    """The shards the plan removes: what each holds and its drain's time by each route."""
    if not f.drains:
        return ""
    rows: list[list[object]] = []
    for d in f.drains:
        shown = dict(routes(d, f.assumptions.tz_name))
        rows.append(
            [
                d.shard,
                held(d),
                shown["by the balancer"],
                shown["by apply --migrate"],
                shown.get("by resharding", "-"),
            ]
        )
    headers = ["shard drained", "moves", "balancer", "apply --migrate", "resharding"]
    return table(headers, rows, label="drain-table")
