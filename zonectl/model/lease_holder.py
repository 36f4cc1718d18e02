"""Whether a lease's holder is a run that no longer exists: one on this host under a pid that
is gone (kill -9). apply, rotate and recover take such a lease over at once; doctor says so."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from typing import Any


def holder_is_dead(holder: Mapping[str, Any]) -> bool:
    """A lease whose holder ran on this host under a pid that no longer exists (kill -9)."""
    if holder.get("host") != socket.gethostname() or not isinstance(holder.get("pid"), int):
        return False
    try:
        os.kill(int(holder["pid"]), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
