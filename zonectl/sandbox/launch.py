"""Start a sandbox server on a local port: the one entry point the CLI and the tests use."""

from __future__ import annotations

import errno
import socket
from typing import TYPE_CHECKING

from zonectl.errors import ZonectlError
from zonectl.sandbox.wire.server import SandboxServer

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox


def serve(sandbox: Sandbox, host: str = "127.0.0.1", port: int = 0) -> SandboxServer:
    """Listen on host:port (0 picks a free port) and serve in background threads.

    The returned server is a context manager; `.uri` is what a MongoClient connects to.
    """
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    # SO_REUSEADDR lets a restarted sandbox reuse a port in TIME_WAIT; Linux still refuses a
    # port another socket is listening on, which is the case we report.
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
        listener.listen(128)
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise ZonectlError(
                f"port {port} is in use on {host}; pick another with --port"
            ) from None
        raise ZonectlError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return SandboxServer(sandbox, listener)
