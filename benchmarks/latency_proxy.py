"""A loopback TCP proxy that adds a fixed delay each way, as a mongos in another zone would:
every byte is held `delay` seconds before it is passed on, in order, per direction. Bounded:
at most MAX_PENDING chunks wait per direction (the reader stops reading past that, so a fast
sender is slowed, not buffered without limit), and only 127.0.0.1 is listened on.

    python benchmarks/latency_proxy.py 127.0.0.1:27017 --delay-ms 2.5   # prints its port

In a benchmark: `with LatencyProxy(("127.0.0.1", port), 0.0025) as proxy: proxy.port`;
`proxy.commands` counts the OP_MSG commands clients sent, by name (the first key of the
body section, wire protocol: MsgHeader, flagBits, kind-0 section), heartbeats included.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import struct
import time
from collections import Counter

from zonectl.sandbox.wire.loop_server import LoopServer
from zonectl.sandbox.wire.reset_proxy import command_name

MAX_PENDING = 256  # chunks in flight per direction
CHUNK = 1 << 16


class CommandNames:
    """Splits a client's byte stream into wire messages and counts OP_MSG (2013) commands
    by the name of their body's first field."""

    def __init__(self, into: Counter[str]) -> None:
        self.into, self.buffer = into, b""

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= 16:
            length = struct.unpack_from("<i", self.buffer)[0]
            if len(self.buffer) < length:
                return
            message, self.buffer = self.buffer[:length], self.buffer[length:]
            name = command_name(message)  # OP_MSG with a body section first, else None
            if name is not None:
                self.into[name] += 1


async def _pump(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    delay: float,
    names: CommandNames | None = None,
) -> None:
    """Copy `reader` to `writer`, each chunk released `delay` seconds after it arrived."""
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue(MAX_PENDING)
    loop = asyncio.get_running_loop()

    async def release() -> None:
        while True:
            due, data = await queue.get()
            if not data:
                break
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        with contextlib.suppress(OSError):
            writer.close()

    sender = asyncio.create_task(release())
    try:
        while data := await reader.read(CHUNK):
            if names is not None:
                names.feed(data)
            await queue.put((loop.time() + delay, data))
    except OSError:
        pass
    finally:
        await queue.put((0.0, b""))
        with contextlib.suppress(OSError):
            await sender


class LatencyProxy(LoopServer):
    """The proxy on its own event loop in a daemon thread; `port` once started."""

    def __init__(self, target: tuple[str, int], delay: float) -> None:
        self.target, self.delay = target, delay
        self.port = 0
        self.connections = 0
        self.commands: Counter[str] = Counter()
        super().__init__("latency-proxy")

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_r, up_w = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(
            _pump(reader, up_w, self.delay, CommandNames(self.commands)),
            _pump(up_r, writer, self.delay),
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", help="HOST:PORT to forward to (loopback)")
    parser.add_argument("--delay-ms", type=float, default=2.5, help="added each way")
    args = parser.parse_args()
    host, _, port = args.target.rpartition(":")
    with LatencyProxy((host or "127.0.0.1", int(port)), args.delay_ms / 1000) as proxy:
        print(f"mongodb://127.0.0.1:{proxy.port}/ -> {args.target}, +{args.delay_ms} ms each way")
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == "__main__":
    main()
