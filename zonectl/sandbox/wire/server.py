"""The sandbox's TCP server: one thread per connection speaking OP_MSG (and the legacy
OP_QUERY handshake), handing each command to the dispatcher.

Why our own threaded server rather than mockupdb: mockupdb is built for scripting replies one
request at a time in tests; the sandbox needs a long-running server with concurrent
connections, raw-BSON cursor streaming at >=100k docs/s, fail points that close or block one
connection, and a clean shutdown that joins every thread (bounded: a command blocked on
the sandbox clock is left behind, not waited for forever). A thread per connection over
blocking sockets is the simplest design that gives all of that; the GIL is no limit because
every command runs under `sandbox.lock` anyway, as config-server writes are serialized.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import socket
import threading
import time
from typing import TYPE_CHECKING, Any

import bson

from zonectl.sandbox.commands.registry import Session
from zonectl.sandbox.wire import framing as wire
from zonectl.sandbox.wire.dispatch import Dispatcher
from zonectl.sandbox.wire.uptime import UptimeReporter

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox

CLOSE_JOIN_S = 5.0  # how long close() waits for connection threads to end

log = logging.getLogger("zonectl.sandbox")

# mongod 5.1+ answers only the hello family over OP_QUERY (SERVER-57385); anything else is
# UnsupportedOpQueryCommand (352).
_OP_QUERY_COMMANDS = frozenset({"hello", "isMaster", "ismaster"})


class SandboxServer:
    """Listens on `host:port` (0 = ephemeral) and serves `sandbox` until `close()`."""

    def __init__(self, sandbox: Sandbox, listener: socket.socket) -> None:
        self.sandbox = sandbox
        self.dispatcher = Dispatcher(sandbox)
        self._listener = listener
        self.host, self.port = listener.getsockname()[:2]
        self._lock = threading.Lock()
        self._connections: dict[int, socket.socket] = {}
        self._threads: set[threading.Thread] = set()
        self._ids = itertools.count(1)
        self._request_ids = itertools.count(1)
        self._closed = False
        # A mongos reports itself in config.mongos (sharding_uptime_reporter.cpp); see uptime.py.
        self._uptime = UptimeReporter(sandbox, int(self.port))
        self._acceptor = threading.Thread(
            target=self._accept_loop, name=f"sandbox-accept-{self.port}", daemon=True
        )
        # The seeded cluster lives as long as the server: out of the collector's reach while
        # it serves (10,000 collections are millions of objects, which every full collection
        # rescanned: a quarter of a status's chunk read), handed back at close. Objects freed
        # meanwhile are freed as ever (reference counts); only cycles made before wait.
        gc.freeze()
        self._acceptor.start()

    @property
    def uri(self) -> str:
        return f"mongodb://{self.host}:{self.port}/"

    @property
    def connection_count(self) -> int:
        with self._lock:
            return len(self._connections)

    def __enter__(self) -> SandboxServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop accepting, end every connection, and join all threads."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            conns = list(self._connections.values())
        self.dispatcher.closing.set()
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._acceptor.join()
        self._uptime.close()
        with self._lock:
            threads = list(self._threads)
        # A command may still wait on the sandbox clock with no deadline (a moveCollection
        # while a test holds the virtual clock): closing its socket does not end that wait, so
        # the join is bounded and such a thread (a daemon) is left behind, never a hang.
        deadline = time.monotonic() + CLOSE_JOIN_S
        for thread in threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        gc.unfreeze()

    def _accept_loop(self) -> None:
        while True:
            try:
                conn, addr = self._listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn_id = next(self._ids)
            thread = threading.Thread(
                target=self._serve,
                args=(conn, conn_id, addr),
                name=f"sandbox-conn-{conn_id}",
                daemon=True,
            )
            with self._lock:
                if self._closed:
                    conn.close()
                    return
                self._connections[conn_id] = conn
                self._threads.add(thread)
            thread.start()

    def _serve(self, conn: socket.socket, conn_id: int, addr: Any) -> None:
        local = conn.getsockname()
        session = Session(
            connection_id=conn_id, peer=f"{addr[0]}:{addr[1]}", local=f"{local[0]}:{local[1]}"
        )
        stream = conn.makefile("rb", buffering=65536)
        try:
            while self._serve_one(conn, stream, session):
                pass
        except (OSError, wire.FramingError) as exc:
            log.debug("connection %d closed: %s", conn_id, exc)
        except Exception:  # a bug must end only this connection, never the server
            log.exception("connection %d failed", conn_id)
        finally:
            stream.close()
            conn.close()
            with self._lock:
                self._connections.pop(conn_id, None)
                self._threads.discard(threading.current_thread())

    def _serve_one(self, conn: socket.socket, stream: Any, session: Session) -> bool:
        message = wire.read_message(stream)
        if message is None:
            return False
        if message.op_code == wire.OP_MSG:
            try:
                request = wire.parse_op_msg(message.body, message.header)
            except wire.WireError as exc:
                self._send(conn, message, wire.encode_op_msg, bson.encode(exc.reply()))
                return True
            outcome = self.dispatcher.run(session, request.command, reply=not request.more_to_come)
            if outcome.reply is not None:
                self._send(conn, message, wire.encode_op_msg, outcome.reply)
            return not outcome.close
        if message.op_code == wire.OP_QUERY:
            return self._serve_op_query(conn, message, session)
        if message.op_code == wire.OP_COMPRESSED:
            # We never advertise compression (§6.1); mongod ends a session it cannot decode.
            return False
        # mongod treats other opcodes as fire-and-forget: logged, no reply, session kept.
        log.info("sandbox: operation isn't supported: opcode %d", message.op_code)
        return True

    def _serve_op_query(self, conn: socket.socket, message: wire.Message, session: Session) -> bool:
        try:
            query = wire.parse_op_query(message.body)
        except wire.WireError as exc:
            self._send(conn, message, wire.encode_op_reply, bson.encode(exc.reply()))
            return True
        command = query.query
        if "$query" in command and isinstance(command["$query"], dict):
            command = dict(command["$query"])
        name = next(iter(command), "")
        if not query.collection.endswith(".$cmd") or name not in _OP_QUERY_COMMANDS:
            error = {
                "ok": 0.0,
                "errmsg": f"Unsupported OP_QUERY command: {name}. The client driver may require "
                "an upgrade. For more details see "
                "https://dochub.mongodb.org/core/legacy-opcode-removal",
                "code": 352,
                "codeName": "UnsupportedOpQueryCommand",
            }
            self._send(conn, message, wire.encode_op_reply, bson.encode(error))
            return True
        command["$db"] = query.collection[: -len(".$cmd")]
        outcome = self.dispatcher.run(session, command)
        if outcome.reply is not None:
            self._send(conn, message, wire.encode_op_reply, outcome.reply)
        return not outcome.close

    def _send(self, conn: socket.socket, message: wire.Message, encode: Any, doc: bytes) -> None:
        conn.sendall(encode(message.request_id, next(self._request_ids), doc))
