"""Views of a plan: text for operators, JSON for machines, markdown for pull requests.

Each view is imported when first asked for (`from zonectl.render import render_text`), so
a run that prints one view, or only uses a module under zonectl.render, loads no other."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zonectl.render.json import render_json
    from zonectl.render.markdown import render_markdown
    from zonectl.render.text import render_text

__all__ = ["render_json", "render_markdown", "render_text"]

_VIEWS = {name: f"zonectl.render.{name.removeprefix('render_')}" for name in __all__}


def __getattr__(name: str) -> Any:
    module = _VIEWS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
