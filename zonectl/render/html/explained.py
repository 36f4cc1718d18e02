"""A sharded namespace's explain state and first reason on the status page, as status's
text says it (zonectl/render/status_explain.py)."""

from __future__ import annotations

from zonectl.explain.reasons import Explanation
from zonectl.render.html.markup import esc
from zonectl.render.status_explain import explain_line


def explain_html(found: Explanation | None) -> str:
    """A paragraph naming the state and the first reason; "" when not sharded."""
    line = explain_line(found)
    if found is None or line is None:
        return ""
    return f'<p class="meta" data-state="{esc(found.state)}">{esc(line.strip())}</p>\n'
