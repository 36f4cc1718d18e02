"""`zonectl status --format html`: one self-contained page: per shard its bytes by zone,
per collection its key-space strip, and the forecast's burn-down, each with its table."""

from __future__ import annotations

from zonectl.forecast.report import Forecast
from zonectl.render.html.burndown import burndown_section
from zonectl.render.html.disk import status_disk_section
from zonectl.render.html.drains import drains_section
from zonectl.render.html.explained import explain_html
from zonectl.render.html.forecast_table import assumptions_line, forecast_table
from zonectl.render.html.markup import esc, page
from zonectl.render.html.settings import settings_section
from zonectl.render.html.strip import (
    shard_colours,
    strip_notes,
    strip_svg,
    strip_table,
    zone_colours,
)
from zonectl.render.html.zonebytes import zone_bytes_section
from zonectl.render.status import CollectionStatus, StatusReport
from zonectl.render.summary import plural


def render_status_html(report: StatusReport, forecast: Forecast) -> str:
    zones = sorted(
        {z for s in report.shards for z in s.zones}
        | {r.zone for c in report.collections for r in c.ranges}
    )
    zone_colour = zone_colours(zones)
    shard_colour = shard_colours([s.id for s in report.shards])
    b = report.balancer
    window = (
        f", window {b.active_window.get('start')}-{b.active_window.get('stop')}"
        if b.active_window
        else ""
    )
    if b.day_windows:
        window = f", day-of-week windows {b.days_text()}{b.ignored_window()}"
    verdict = (
        '<span class="ok">compliant</span>'
        if report.compliant
        else '<span class="bad">not compliant</span>'
    )
    body = [
        "<h1>zonectl status</h1>\n",
        f'<p class="meta">{esc(report.uri)} · MongoDB {esc(report.version)} · balancer '
        f"{esc(b.mode)}{esc(window)} · {verdict}</p>\n",
        "<h2>Per shard: data by zone</h2>\n",
        zone_bytes_section(
            [(s.id, s.zones) for s in report.shards], report.collections, zone_colour
        ),
        status_disk_section(report.disk),
        drains_section(report.drains),
        settings_section(report.settings),
        "<h2>Per collection: the key space</h2>\n",
        '<p class="meta">Top: zone ranges as bands. Middle: chunks in key order, coloured by '
        "shard. Below: black bars where chunks sit outside their zone, hollow diamonds where "
        "a chunk straddles a zone boundary. Dashed lines: range boundaries.</p>\n",
    ]
    if not report.collections:
        body.append('<p class="note">No sharded collection and no zone range.</p>\n')
    for c in report.collections:
        body.append(_collection(c, zone_colour, shard_colour))
    body.append("<h2>Forecast: the road to compliance</h2>\n")
    body.append(assumptions_line(forecast))
    body.append(burndown_section(forecast))
    if forecast.namespaces:
        body.append(forecast_table(forecast))
    if report.notes:
        body.append(
            "<h2>Notes</h2>\n<ul>" + "".join(f"<li>{esc(n)}</li>" for n in report.notes) + "</ul>\n"
        )
    return page("zonectl status", body)


def _collection(
    c: CollectionStatus, zone_colour: dict[str, str], shard_colour: dict[str, str]
) -> str:
    head = f'<h3 data-ns="{esc(c.namespace)}">{esc(c.namespace)}</h3>\n'
    if not c.sharded:
        return head + '<p class="note">Not sharded: zone ranges but no chunks to draw.</p>\n'
    key = "{" + ", ".join(f"{k}: {v}" for k, v in (c.key or {}).items()) + "}"
    stand = (
        f"key {key}; {plural(c.chunks, 'chunk')}; {c.outside_zone} outside their zone; "
        f"{c.straddling} straddling a boundary; balancing {'on' if c.balancing else 'off'}"
    )
    out = [head, f'<p class="meta">{esc(stand)}</p>\n', explain_html(c.explained)]
    layout = c.layout
    if layout is None or not layout.chunks:
        out.append('<p class="note">No chunks: nothing to draw.</p>\n')
        return "".join(out)
    out += [f'<p class="note">{esc(n)}</p>\n' for n in strip_notes(layout, c.key)]
    out.append(strip_svg(c.namespace, layout, zone_colour, shard_colour))
    out.append(strip_table(layout))
    return "".join(out)
