"""Opening the one connection a command runs on (zonectl.mongo.connect), the URI's origin
named in its errors. The command modules' one import of zonectl.mongo; what is read on the
connection is zonectl.session's. Imports no other command module (fleet runs use it too)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager

from zonectl.mongo.connect import Connection, connect
from zonectl.session.listeners import Listener

__all__ = ["Connection", "open_cluster"]


def open_cluster(
    uri: str | None, origin: str, *, listeners: Sequence[Listener] = ()
) -> AbstractContextManager[Connection]:
    """`with open_cluster(uri, uri_origin(uri)) as conn:`: connected to a mongos, or
    ClusterError/UsageError (exit 1/2) naming `origin` (where the URI came from:
    zonectl.cli.common.uri_origin) and never the password."""
    return connect(uri, listeners=listeners, origin=origin)
