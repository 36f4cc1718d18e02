"""Sandbox command handlers, one module per family; each registers with `registry.command`.

`registry` (the command table), `authz` (privileges each command needs) and the small
request helpers (`nsutil`, `move_rules`) sit beside the handler modules.
"""

from __future__ import annotations

import importlib
import pkgutil

_loaded = False


def load_all() -> None:
    """Import every module in this package, so that their `@command` decorators run.

    By name at run time: the package itself imports none of its modules, so the modules
    it holds can import each other and `registry` without a circle.
    """
    global _loaded
    if _loaded:
        return
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    _loaded = True
