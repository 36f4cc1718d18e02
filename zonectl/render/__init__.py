"""Views of a plan: text for operators, JSON for machines, markdown for pull requests."""

from __future__ import annotations

from zonectl.render.json import render_json
from zonectl.render.markdown import render_markdown
from zonectl.render.text import render_text

__all__ = ["render_json", "render_markdown", "render_text"]
