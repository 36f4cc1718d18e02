"""The wire protocol over a raw socket: legacy OP_QUERY handshake, OP_MSG sections and
flags, and malformed input that must never take the server down."""

from __future__ import annotations

import socket
import struct
from typing import Any

import bson
import pytest

from zonectl.sandbox.wire.framing import crc32c


@pytest.fixture(scope="module")
def sb(module_sandbox_server: Any) -> Any:
    return module_sandbox_server()


def connect(sb: Any) -> socket.socket:
    return socket.create_connection(("127.0.0.1", sb.port), timeout=5)


def recv_message(sock: socket.socket) -> tuple[int, int, bytes]:
    header = _recv(sock, 16)
    length, _req, response_to, op = struct.unpack("<iiii", header)
    return op, response_to, _recv(sock, length - 16)


def _recv(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def op_msg(doc: dict[str, Any], request_id: int = 7, flags: int = 0, extra: bytes = b"") -> bytes:
    body = struct.pack("<I", flags) + b"\x00" + bson.encode(doc) + extra
    return struct.pack("<iiii", 16 + len(body), request_id, 0, 2013) + body


def reply_doc(sock: socket.socket) -> dict[str, Any]:
    op, _, body = recv_message(sock)
    assert op == 2013
    return bson.decode(body[5:])


def test_legacy_op_query_handshake_gets_op_reply(sb: Any) -> None:
    query = bson.encode({"isMaster": 1, "helloOk": True, "client": {"application": {"name": "x"}}})
    body = struct.pack("<i", 0) + b"admin.$cmd\x00" + struct.pack("<ii", 0, -1) + query
    with connect(sb) as sock:
        sock.sendall(struct.pack("<iiii", 16 + len(body), 42, 0, 2004) + body)
        op, response_to, reply = recv_message(sock)
        assert (op, response_to) == (1, 42)
        flags, cursor_id, start, returned = struct.unpack_from("<iqii", reply)
        assert (flags, cursor_id, start, returned) == (0, 0, 0, 1)
        doc = bson.decode(reply[20:])
        assert doc["ismaster"] is True and doc["msg"] == "isdbgrid"
        # The same connection then speaks OP_MSG.
        sock.sendall(op_msg({"ping": 1, "$db": "admin"}))
        assert reply_doc(sock)["ok"] == 1.0


def test_op_query_for_other_commands_is_unsupported(sb: Any) -> None:
    body = struct.pack("<i", 0) + b"admin.$cmd\x00" + struct.pack("<ii", 0, -1)
    body += bson.encode({"ping": 1})
    with connect(sb) as sock:
        sock.sendall(struct.pack("<iiii", 16 + len(body), 1, 0, 2004) + body)
        _, _, reply = recv_message(sock)
        assert bson.decode(reply[20:])["code"] == 352


def test_kind_one_sections_are_merged_into_the_command(sb: Any) -> None:
    docs = bson.encode({"_id": 1}) + bson.encode({"_id": 2})
    seq = b"documents\x00" + docs
    section = b"\x01" + struct.pack("<i", 4 + len(seq)) + seq
    with connect(sb) as sock:
        sock.sendall(op_msg({"insert": "k1", "$db": "rawwire"}, extra=section))
        assert reply_doc(sock)["n"] == 2


def test_more_to_come_gets_no_reply(sb: Any) -> None:
    with connect(sb) as sock:
        sock.sendall(op_msg({"insert": "m", "documents": [{"_id": 1}], "$db": "rawwire"}, flags=2))
        sock.sendall(op_msg({"count": "m", "$db": "rawwire"}, request_id=9))
        _op, response_to, body = recv_message(sock)
        assert response_to == 9 and bson.decode(body[5:])["n"] == 1


def test_checksum_is_verified(sb: Any) -> None:
    with connect(sb) as sock:
        msg = op_msg({"ping": 1, "$db": "admin"}, flags=1)
        msg = struct.pack("<i", len(msg) + 4) + msg[4:]
        sock.sendall(msg + struct.pack("<I", crc32c(msg)))
        assert reply_doc(sock)["ok"] == 1.0
        sock.sendall(msg + struct.pack("<I", 12345))
        assert reply_doc(sock)["codeName"] == "ChecksumMismatch"


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (struct.pack("<I", 0) + b"\x05" + bson.encode({"ping": 1}), 40432),  # bad section kind
        (struct.pack("<I", 1 << 3) + b"\x00" + bson.encode({"ping": 1}), 223),  # unknown flag
        (struct.pack("<I", 0) + b"\x00" + b"\x10\x00\x00\x00garbage!", 22),  # invalid BSON
        (struct.pack("<I", 0), 40587),  # no body
        (struct.pack("<I", 0) + b"\x00" + bson.encode({"ping": 1}), 40571),  # no $db
    ],
)
def test_malformed_op_msg_gets_an_error_reply(sb: Any, payload: bytes, code: int) -> None:
    with connect(sb) as sock:
        sock.sendall(struct.pack("<iiii", 16 + len(payload), 3, 0, 2013) + payload)
        doc = reply_doc(sock)
        assert doc["ok"] == 0.0 and doc["code"] == code and doc["errmsg"]


@pytest.mark.parametrize(
    "garbage",
    [
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",  # an absurd length: the session ends
        b"\x10\x00\x00",  # a truncated header
        struct.pack("<iiii", 16 + 4, 1, 0, 2013) + b"\x00",  # truncated body, then EOF
    ],
)
def test_garbage_closes_only_that_connection(sb: Any, garbage: bytes) -> None:
    with connect(sb) as sock:
        sock.sendall(garbage)
        sock.shutdown(socket.SHUT_WR)
        assert sock.recv(100) == b""
    assert sb.client.admin.command("ping")["ok"] == 1.0


def test_unknown_opcode_is_ignored_and_the_session_continues(sb: Any) -> None:
    with connect(sb) as sock:
        sock.sendall(struct.pack("<iiii", 20, 1, 0, 9999) + b"\x00\x00\x00\x00")
        sock.sendall(op_msg({"ping": 1, "$db": "admin"}, request_id=11))
        assert reply_doc(sock)["ok"] == 1.0
