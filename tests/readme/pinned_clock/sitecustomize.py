"""Imported by every Python process the docs kit starts (this folder is on their
PYTHONPATH): when DOCS_KIT_NOW names an instant, the process's calendar starts there and
runs on (time-machine: datetime.now, time.time, ...; time.monotonic is left alone), so a
page's commands see the kit's pinned day, not the host's (docs/README.md)."""

import datetime as _dt
import os as _os

_AT = _os.environ.get("DOCS_KIT_NOW")
if _AT:
    import time_machine as _time_machine

    _time_machine.travel(_dt.datetime.fromisoformat(_AT), tick=True).start()
