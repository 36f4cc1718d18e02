"""The forecast's burn-down as a Mermaid `xychart-beta`, which GitHub and GitLab render
natively in markdown (PR comments, job summaries): bytes left per route at a dozen
instants, bars where the balancer's window is open. The table beside it keeps the figures.

`xychart-beta` appeared in Mermaid 10.5; GitLab bundles 10.7 and GitHub 11.x, and 11 still
accepts the `-beta` spelling (the plain `xychart` keyword is 11-only), so this keyword
renders on both. It has no legend: the caption names the colours, which the init line
pins to Okabe-Ito's blue and vermilion (safe for colour-blind readers)."""

from __future__ import annotations

import datetime as dt

from zonectl.forecast.report import Forecast
from zonectl.forecast.units import format_duration

SAMPLES = 13  # instants on the x axis, 0 to the last route's end
_UNITS = (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024), ("B", 1))


def burndown_mermaid(f: Forecast) -> list[str]:
    """Markdown lines: the fenced chart and its caption; none when nothing moves."""
    curves = [c for c in f.burndown if len(c.points) > 1]
    if not curves:
        return []
    span = max(c.seconds for c in curves) or 1.0
    total = max(p[1] for c in curves for p in c.points)
    unit, scale = next((u, s) for u, s in _UNITS if total >= s or s == 1)
    times = [span * k / (SAMPLES - 1) for k in range(SAMPLES)]
    labels = ", ".join(f'"+{format_duration(t)}"' for t in times)
    top = total / scale

    def series(values: list[float]) -> str:
        return "[" + ", ".join(f"{v:.2f}" for v in values) + "]"

    palette = []
    plots = []
    window = f.assumptions.window
    if window is not None:
        opened = [top if window.contains(f.now + dt.timedelta(seconds=t)) else 0.0 for t in times]
        plots.append(f"    bar {series(opened)}")
        palette.append("#DDDDDD")
    names = {
        "migrate": ("`apply --migrate`", "#0072B2", "blue"),
        "balancer": ("balancer", "#D55E00", "vermilion"),
    }
    caption = []
    for c in curves:
        name, colour, word = names.get(c.route, (c.route, "#000000", "black"))
        plots.append(f"    line {series([c.left_at(t) / scale for t in times])}")
        palette.append(colour)
        caption.append(f"{word}: {name}")
    if window is not None:
        caption.append("grey bars: balancer window open")
    init = '{"themeVariables": {"xyChart": {"plotColorPalette": "' + ", ".join(palette) + '"}}}'
    return [
        "```mermaid",
        f"%%{{init: {init}}}%%",
        "xychart-beta",
        f'    title "Bytes left to move ({unit})"',
        f"    x-axis [{labels}]",
        f'    y-axis "{unit} left" 0 --> {max(top, 0.01):.2f}',
        *plots,
        "```",
        "",
        f"*Burn-down, from {f.now:%Y-%m-%d %H:%M} UTC: {'; '.join(caption)}.*",
        "",
    ]
