"""`zonectl plan --format html`: the plan's ops as text and the forecast of the movement
it causes as a burn-down, in one self-contained page."""

from __future__ import annotations

from zonectl.forecast.report import Forecast
from zonectl.plan.plan import Plan
from zonectl.render.html.burndown import burndown_section
from zonectl.render.html.disk import plan_disk_section
from zonectl.render.html.forecast_table import assumptions_line, drain_table, forecast_table
from zonectl.render.html.markup import esc, esc_lines, page
from zonectl.render.summary import summary_line
from zonectl.render.text import render_text


def render_plan_html(plan: Plan, forecast: Forecast) -> str:
    body = [
        "<h1>zonectl plan</h1>\n",
        f'<p class="meta">{esc(summary_line(plan))}</p>\n',
        plan_disk_section(plan.capacity),
        "<h2>Forecast: the road to compliance once applied</h2>\n",
        assumptions_line(forecast),
        burndown_section(forecast),
    ]
    if forecast.namespaces:
        body.append(forecast_table(forecast))
    body.append(drain_table(forecast))
    body += [
        "<h2>The plan</h2>\n",
        f"<pre>{esc_lines(render_text(plan, color=False))}</pre>\n",
    ]
    return page("zonectl plan", body)
