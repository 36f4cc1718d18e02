"""Imported by every Python process the docs kit starts (this folder is on their
PYTHONPATH): when DOCS_KIT_NOW names an instant, the process's calendar starts there and
runs on (time-machine: datetime.now, time.time, ...; time.monotonic is left alone), so a
page's commands see the kit's pinned day, not the host's (docs/README.md)."""

import datetime as _dt
import os as _os

_AT = _os.environ.get("DOCS_KIT_NOW")
if _AT:
    import sys as _sys

    # time-machine imports pytest, when it can, for its pytest plugin: 75 ms in every
    # process a page starts, none of which is a pytest run. Hidden while it loads.
    _hide = "pytest" not in _sys.modules
    if _hide:
        _sys.modules["pytest"] = None  # type: ignore[assignment]  # `import pytest` fails
    try:
        import time_machine as _time_machine
    finally:
        if _hide:
            del _sys.modules["pytest"]

    _time_machine.travel(_dt.datetime.fromisoformat(_AT), tick=True).start()
