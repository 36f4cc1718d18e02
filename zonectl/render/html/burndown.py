"""The forecast as a burn-down: bytes still to move over time, one line per route (the
balancer inside its window, `apply --migrate --parallel N`), the balancer's active window
shaded, and the same figures as a table."""

from __future__ import annotations

import datetime as dt

from zonectl.forecast.balancer_window import BalancerWindow
from zonectl.forecast.burndown import BurnDown
from zonectl.forecast.report import Forecast
from zonectl.forecast.units import format_bytes, format_duration
from zonectl.render.html.markup import alternative, esc, legend, table

X0, X1, Y0, Y1 = 70.0, 960.0, 16.0, 226.0  # plot area in SVG units (y grows downwards)
MAX_WINDOWS = 120  # window openings shaded at most
TABLE_ROWS = 24  # rows per route in the table alternative
ROUTES = {  # route -> (label, colour, dash): Okabe-Ito blue and vermilion, also told by dash
    "migrate": ("apply --migrate", "#0072B2", ""),
    "balancer": ("balancer", "#D55E00", "7 4"),
}


def window_openings(
    window: BalancerWindow, start: dt.datetime, end: dt.datetime
) -> list[tuple[dt.datetime, dt.datetime]]:
    """The intervals in [start, end] when the balancer's window is open."""
    out: list[tuple[dt.datetime, dt.datetime]] = []
    t = start
    while t < end and len(out) <= MAX_WINDOWS:
        opens = window.next_open(t)
        if opens >= end:
            break
        closes = window.closes_after(opens)
        out.append((opens, min(closes, end)))
        t = closes + dt.timedelta(minutes=1)
    return out


def _f(v: float) -> str:
    return f"{v:.1f}"


def burndown_section(f: Forecast) -> str:
    curves = [c for c in f.burndown if len(c.points) > 1]
    if not curves:
        return _never(f)
    total = max(p[1] for c in curves for p in c.points) or 1
    span = max(c.seconds for c in curves) or 1.0

    def x(seconds: float) -> float:
        return X0 + (X1 - X0) * seconds / span

    def y(left: float) -> float:
        return Y1 - (Y1 - Y0) * left / total

    parts = [
        '<svg class="burndown" viewBox="0 0 1000 262" role="img" '
        'aria-label="bytes left to move over time, per route">',
        "<title>Bytes left to move over time, per route</title>",
    ]
    end = f.now + dt.timedelta(seconds=span)
    openings = window_openings(f.assumptions.window, f.now, end) if f.assumptions.window else []
    for a, b in openings[:MAX_WINDOWS]:
        xa, xb = x((a - f.now).total_seconds()), x((b - f.now).total_seconds())
        parts.append(
            f'<rect class="window" x="{_f(xa)}" y="{Y0}" width="{_f(max(xb - xa, 0.5))}" '
            f'height="{Y1 - Y0}" fill="#DDDDDD"><title>balancer window open '
            f"{a:%Y-%m-%d %H:%M}-{b:%H:%M} UTC</title></rect>"
        )
    parts.append(
        f'<path class="axis" d="M{X0} {Y0}V{Y1}H{X1}" fill="none" stroke="#222" stroke-width="1"/>'
    )
    for frac in (0.0, 0.5, 1.0):
        parts.append(
            f'<text x="{X0 - 6}" y="{_f(y(total * frac) + 4)}" text-anchor="end">'
            f"{esc(format_bytes(total * frac))}</text>"
        )
    for k in range(5):
        s = span * k / 4
        at = f.now + dt.timedelta(seconds=s)
        anchor = "start" if k == 0 else "end" if k == 4 else "middle"
        parts.append(
            f'<text x="{_f(x(s))}" y="{Y1 + 16}" text-anchor="{anchor}">+{esc(format_duration(s))}'
            f'</text><text x="{_f(x(s))}" y="{Y1 + 30}" text-anchor="{anchor}">'
            f"{at:%m-%d %H:%M}</text>"
        )
    for c in curves:
        label, colour, dash = ROUTES.get(c.route, (c.route, "#000000", "2 2"))
        d = f"M{_f(x(0))} {_f(y(c.points[0][1]))}"
        for seconds, left in c.points[1:]:
            d += f"H{_f(x(seconds))}V{_f(y(left))}"  # steps: bytes drop at each commit
        dashing = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<path class="route" data-route="{esc(c.route)}" data-points="{len(c.points)}" '
            f'd="{d}" fill="none" stroke="{colour}" stroke-width="2.5"{dashing}/>'
        )
        lx = x(c.seconds)
        anchor = "start" if lx < X0 + 160 else "end"
        parts.append(
            f'<text x="{_f(lx + 4 if anchor == "start" else lx - 4)}" y="{_f(Y1 - 6)}" '
            f'text-anchor="{anchor}" fill="{colour}">{esc(label)} done</text>'
        )
    parts.append("</svg>\n")
    keys = [
        (ROUTES.get(c.route, (c.route, "#000", ""))[0], ROUTES.get(c.route, ("", "#000", ""))[1])
        for c in curves
    ]
    if openings:
        keys.append(("balancer window open", "#DDDDDD"))
    notes = _notes(f, curves, len(openings))
    return "".join(parts) + legend(keys) + notes + _table(f, curves, openings)


def _notes(f: Forecast, curves: list[BurnDown], openings: int) -> str:
    out = []
    if not any(c.route == "balancer" for c in curves):
        why = next((n.why_not for n in f.namespaces if n.why_not), "see the table")
        out.append(f"The balancer will not finish ({why}): no balancer line.")
    if openings > MAX_WINDOWS:
        out.append(f"Only the first {MAX_WINDOWS} window openings are shaded.")
    return "".join(f'<p class="note">{esc(t)}</p>\n' for t in out)


def _never(f: Forecast) -> str:
    if not f.namespaces:
        return '<p class="note">Nothing to move: every chunk is in its zone.</p>\n'
    return '<p class="note">No route finishes: see the forecast table.</p>\n'


def _table(
    f: Forecast, curves: list[BurnDown], openings: list[tuple[dt.datetime, dt.datetime]]
) -> str:
    rows: list[list[object]] = []
    for c in curves:
        step = max(1, -(-len(c.points) // TABLE_ROWS))
        shown = list(c.points[::step])
        if shown[-1] != c.points[-1]:
            shown.append(c.points[-1])
        for seconds, left in shown:
            at = f.now + dt.timedelta(seconds=seconds)
            label = ROUTES.get(c.route, (c.route,))[0]
            rows.append(
                [label, f"+{format_duration(seconds)}", f"{at:%Y-%m-%d %H:%M}", format_bytes(left)]
            )
    windows = "".join(
        f"<li>{a:%Y-%m-%d %H:%M}-{b:%H:%M} UTC</li>" for a, b in openings[:MAX_WINDOWS]
    )
    body = table(
        ["route", "after", "at (UTC)", "bytes left"], rows, numeric=[3], label="burndown-table"
    )
    if windows:
        body += f"<p>Balancer window open:</p><ul>{windows}</ul>"
    return alternative("Burn-down as a table", body)
