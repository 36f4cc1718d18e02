"""A loopback TCP proxy that resets connections, as a load balancer's idle timeout or a
mongos restart does: each client connection is reset after a random (seeded) lifetime, or on
demand when it sends a named command (`cut`). The server behind it still gets every byte
the client sent, so a command that reached it runs to its end while the client sees the
reset. A test facility for the sandbox (no pymongo): `with ResetProxy(target) as p: p.port`.

`commands` counts the OP_MSG commands clients sent, by name (the body section's first key;
wire protocol: MsgHeader 16 bytes, flagBits 4, section kind 0, then the BSON document)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import struct
import threading
from collections import Counter
from dataclasses import dataclass, field

from zonectl.sandbox.wire.loop_server import LoopServer

OP_MSG = 2013
CHUNK = 1 << 16


@dataclass
class Cut:
    """Reset the connection that sends the `nth` `command` (from when it was armed)."""

    command: str
    nth: int = 1
    reply_bytes: int = 0  # of the server's reply passed on before the reset
    after_s: float | None = None  # reset this long after the command, not at its reply
    seen: int = 0
    fired: threading.Event = field(default_factory=threading.Event)


def command_name(message: bytes) -> str | None:
    """The command of an OP_MSG whose first section is the body (kind 0), else None."""
    if len(message) < 27 or struct.unpack_from("<i", message, 12)[0] != OP_MSG:
        return None
    if message[20] != 0:
        return None
    end = message.find(b"\0", 26)
    return message[26:end].decode("utf-8", "replace") if end > 26 else None


class _Link:
    """One client connection and its upstream: two pumps, and the reset of both."""

    def __init__(self, proxy: ResetProxy, client: asyncio.StreamWriter) -> None:
        self.proxy, self.client = proxy, client
        self.upstream: asyncio.StreamWriter | None = None
        self.cut_at_reply: Cut | None = None
        self.closed = False

    def reset(self) -> None:
        """Close both sides at once; the client's side with an RST (SO_LINGER 0), as a
        load balancer that drops the connection does."""
        if self.closed:
            return
        self.closed = True
        self.proxy.resets += 1
        sock = self.client.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.client.transport.abort()
        if self.upstream is not None:
            self.upstream.transport.abort()

    async def from_client(self, reader: asyncio.StreamReader) -> None:
        buffer = b""
        while not self.closed and (data := await reader.read(CHUNK)):
            buffer += data
            while len(buffer) >= 16:
                length = struct.unpack_from("<i", buffer)[0]
                if len(buffer) < length:
                    break
                message, buffer = buffer[:length], buffer[length:]
                self._forward(message)
        if not self.closed and self.upstream is not None:
            self.upstream.close()

    def _forward(self, message: bytes) -> None:
        assert self.upstream is not None
        self.upstream.write(message)  # whole: the server runs it, whatever follows
        name = command_name(message)
        if name is None:
            return
        self.proxy.commands[name] += 1
        cut = self.proxy.take_cut(name)
        if cut is None:
            return
        if cut.after_s is None:
            self.cut_at_reply = cut
        else:
            asyncio.get_running_loop().call_later(cut.after_s, self._fire, cut)

    def _fire(self, cut: Cut) -> None:
        self.reset()
        cut.fired.set()

    async def from_server(self, reader: asyncio.StreamReader) -> None:
        while not self.closed and (data := await reader.read(CHUNK)):
            cut = self.cut_at_reply
            if cut is not None:
                self.client.write(data[: cut.reply_bytes])
                with contextlib.suppress(OSError, ConnectionError):
                    await self.client.drain()
                self._fire(cut)
                return
            self.client.write(data)
            await self.client.drain()
        if not self.closed:
            self.client.close()


class ResetProxy(LoopServer):
    """The proxy on its own event loop in a daemon thread; `port` once started.

    `lifetime=(lo, hi)`: every connection is reset `random.uniform(lo, hi)` seconds after it
    opened (seeded by `seed`); None: only `cut` resets. `resets` counts the resets done."""

    def __init__(
        self,
        target: tuple[str, int],
        *,
        lifetime: tuple[float, float] | None = None,
        seed: int = 0,
    ) -> None:
        self.target, self.lifetime = target, lifetime
        self.random = random.Random(seed)
        self.port = 0
        self.connections = 0
        self.resets = 0
        self.commands: Counter[str] = Counter()
        self._cuts: list[Cut] = []
        self._links: set[_Link] = set()
        self._lock = threading.Lock()
        super().__init__("reset-proxy")

    def cut(
        self, command: str, nth: int = 1, *, reply_bytes: int = 0, after_s: float | None = None
    ) -> threading.Event:
        """Reset the connection that sends the `nth` `command` from now: the command goes to
        the server whole; the client gets `reply_bytes` bytes of its reply, then the reset
        (so the command completed on the server), or with `after_s` the reset comes that
        long after the command, while the server may still run it. The event is set once
        the reset happened."""
        rule = Cut(command, nth, reply_bytes, after_s)
        with self._lock:
            self._cuts.append(rule)
        return rule.fired

    def take_cut(self, name: str) -> Cut | None:
        with self._lock:
            for rule in self._cuts:
                if rule.command == name:
                    rule.seen += 1
                    if rule.seen == rule.nth:
                        self._cuts.remove(rule)
                        return rule
        return None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        link = _Link(self, writer)
        self._links.add(link)
        try:
            up_r, link.upstream = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        timer = None
        if self.lifetime is not None:
            delay = self.random.uniform(*self.lifetime)
            timer = asyncio.get_running_loop().call_later(delay, link.reset)
        await asyncio.gather(
            link.from_client(reader), link.from_server(up_r), return_exceptions=True
        )
        if timer is not None:
            timer.cancel()
        self._links.discard(link)

    def _stopped(self) -> None:
        for link in list(self._links):  # every pump then ends on its own
            link.closed = True
            link.client.transport.abort()
            if link.upstream is not None:
                link.upstream.transport.abort()
        tasks = asyncio.all_tasks(self._loop)
        self._loop.run_until_complete(asyncio.wait(tasks, timeout=2) if tasks else asyncio.sleep(0))
        self._loop.close()

    @property
    def uri(self) -> str:
        return f"mongodb://127.0.0.1:{self.port}/"
