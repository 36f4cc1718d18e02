"""`--format html`: self-contained pages (inline SVG and CSS, no script, nothing fetched)
picturing where data sits and the road to compliance; every picture has a table."""

from __future__ import annotations

from zonectl.render.html.plan_page import render_plan_html
from zonectl.render.html.status_page import render_status_html

__all__ = ["render_plan_html", "render_status_html"]
