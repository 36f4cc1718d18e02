"""A loopback TCP server on its own asyncio event loop in a daemon thread, for the test and
benchmark proxies in front of a sandbox: `with Proxy(...) as p: p.port`. A subclass gives
`_handle` (one client connection) and, if it needs one, `_stopped` (clean-up on the loop)."""

from __future__ import annotations

import asyncio
import threading
from types import TracebackType
from typing import Self


class LoopServer:
    def __init__(self, name: str) -> None:
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError

    def _stopped(self) -> None:
        """After the loop stopped and the server closed, on the server's thread."""

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = int(server.sockets[0].getsockname()[1])
        self._ready.set()
        self._loop.run_forever()
        server.close()
        self._stopped()

    def __enter__(self) -> Self:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
