"""MongoDB wire-protocol framing: read a message, parse OP_MSG / legacy OP_QUERY, encode replies.

Layouts follow reference §6.1 and mongo:src/mongo/rpc/op_msg.cpp (`OpMsg::parse`): unknown
required flag bits (0-15) are IllegalOpMsgFlag, a second body is 40430, an unknown section
kind 40432, no body 40587, a body field duplicated by a document sequence 40433, and a bad
CRC-32C ChecksumMismatch. A parse error is a `WireError` the server answers as MongoDB does.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, BinaryIO

import bson
from bson.errors import BSONError

from zonectl.sandbox.codec import CODEC

OP_REPLY = 1
OP_QUERY = 2004
OP_COMPRESSED = 2012
OP_MSG = 2013

CHECKSUM_PRESENT = 1 << 0
MORE_TO_COME = 1 << 1
EXHAUST_ALLOWED = 1 << 16
_KNOWN_REQUIRED = CHECKSUM_PRESENT | MORE_TO_COME

MAX_MESSAGE_BYTES = 48_000_000  # maxMessageSizeBytes advertised in hello (§6.3)

_HEADER = struct.Struct("<iiii")
_INT32 = struct.Struct("<i")


class WireError(Exception):
    """A malformed request the server answers with an error reply (code, codeName, errmsg)."""

    def __init__(self, code: int, code_name: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.code_name = code_name
        self.message = message

    def reply(self) -> dict[str, Any]:
        return {"ok": 0.0, "errmsg": self.message, "code": self.code, "codeName": self.code_name}


class FramingError(Exception):
    """The byte stream cannot be framed; mongod closes the connection (no reply possible)."""


@dataclass(frozen=True)
class Message:
    request_id: int
    op_code: int
    body: bytes  # everything after the 16-byte header
    header: bytes = b""  # the raw header (the OP_MSG checksum covers it)


@dataclass(frozen=True)
class OpMsg:
    flags: int
    command: dict[str, Any]

    @property
    def more_to_come(self) -> bool:
        return bool(self.flags & MORE_TO_COME)


@dataclass(frozen=True)
class OpQuery:
    collection: str
    query: dict[str, Any]


def read_message(stream: BinaryIO) -> Message | None:
    """The next message, or None on a clean EOF before a header."""
    header = _read_exact(stream, 16, allow_eof=True)
    if header is None:
        return None
    length, request_id, _response_to, op_code = _HEADER.unpack(header)
    if length < 16 or length > MAX_MESSAGE_BYTES:
        # mongod: "recv(): message msgLen N is invalid" and the session ends.
        raise FramingError(f"message length {length} is invalid")
    body = _read_exact(stream, length - 16, allow_eof=False)
    assert body is not None
    return Message(request_id, op_code, body, header)


def _read_exact(stream: BinaryIO, n: int, *, allow_eof: bool) -> bytes | None:
    chunks: list[bytes] = []
    got = 0
    while got < n:
        chunk = stream.read(n - got)
        if not chunk:
            if allow_eof and got == 0:
                return None
            raise FramingError("connection closed mid-message")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def parse_op_msg(body: bytes, header: bytes = b"") -> OpMsg:
    if len(body) < 5:
        raise WireError(40587, "Location40587", "OP_MSG messages must have a body")
    (flags,) = struct.unpack_from("<I", body, 0)
    if flags & 0xFFFF & ~_KNOWN_REQUIRED:
        raise WireError(
            223, "IllegalOpMsgFlag", f"Message contains illegal flags value: Ob{flags:032b}"
        )
    end = len(body)
    if flags & CHECKSUM_PRESENT:
        end -= 4
        if end <= 4:
            raise WireError(
                51251, "Location51251", "Invalid message size for an OpMsg containing a checksum"
            )
    command: dict[str, Any] | None = None
    sequences: dict[str, list[dict[str, Any]]] = {}
    pos = 4
    try:
        while pos < end:
            kind = body[pos]
            pos += 1
            if kind == 0:
                if command is not None:
                    raise WireError(40430, "Location40430", "Multiple body sections in message")
                size = _INT32.unpack_from(body, pos)[0]
                command = bson.decode(body[pos : pos + size], CODEC)
                pos += size
            elif kind == 1:
                size = _INT32.unpack_from(body, pos)[0]
                section_end = pos + size
                if size < 5 or section_end > end:
                    raise WireError(22, "InvalidBSON", "document sequence exceeds message")
                name_end = body.index(b"\x00", pos + 4, section_end)
                name = body[pos + 4 : name_end].decode()
                if name in sequences:
                    raise WireError(40431, "Location40431", f"Duplicate document sequence: {name}")
                sequences[name] = bson.decode_all(body[name_end + 1 : section_end], CODEC)
                pos = section_end
            else:
                raise WireError(40432, "Location40432", f"Unknown section kind {kind}")
    except (BSONError, struct.error, ValueError, IndexError, UnicodeDecodeError) as exc:
        raise WireError(22, "InvalidBSON", f"invalid BSON in OP_MSG: {exc}") from None
    if command is None:
        raise WireError(40587, "Location40587", "OP_MSG messages must have a body")
    if flags & CHECKSUM_PRESENT:
        (expected,) = struct.unpack_from("<I", body, end)
        # The checksum covers the whole message, header included, minus the checksum itself.
        if crc32c(header + body[:end]) != expected:
            raise WireError(282, "ChecksumMismatch", "OP_MSG checksum does not match contents")
    for name, docs in sequences.items():
        if name in command:
            raise WireError(
                40433, "Location40433", f"Duplicate field between body and document sequence {name}"
            )
        command[name] = docs
    return OpMsg(flags, command)


def parse_op_query(body: bytes) -> OpQuery:
    """Legacy OP_QUERY: int32 flags, cstring collection, int32 skip, int32 nReturn, query."""
    try:
        name_end = body.index(b"\x00", 4)
        collection = body[4:name_end].decode()
        pos = name_end + 1 + 8
        size = _INT32.unpack_from(body, pos)[0]
        query = bson.decode(body[pos : pos + size], CODEC)
    except (BSONError, struct.error, ValueError, IndexError, UnicodeDecodeError) as exc:
        raise WireError(22, "InvalidBSON", f"invalid OP_QUERY: {exc}") from None
    return OpQuery(collection, query)


def encode_op_msg(response_to: int, request_id: int, document: bytes) -> bytes:
    """An OP_MSG reply: flags 0, one kind-0 section (what pymongo's `_OpMsg.unpack` wants)."""
    length = 16 + 4 + 1 + len(document)
    return b"".join(
        (_HEADER.pack(length, request_id, response_to, OP_MSG), b"\x00\x00\x00\x00\x00", document)
    )


def encode_op_reply(response_to: int, request_id: int, document: bytes) -> bytes:
    """OP_REPLY: responseFlags 0, cursorID 0, startingFrom 0, numberReturned 1 (§6.1)."""
    prefix = struct.pack("<iqii", 0, 0, 0, 1)
    length = 16 + len(prefix) + len(document)
    return b"".join((_HEADER.pack(length, request_id, response_to, OP_REPLY), prefix, document))


def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC_TABLE = _crc_table()


def crc32c(data: bytes, crc: int = 0) -> int:
    """CRC-32C (Castagnoli), the OP_MSG checksum; rarely used, so pure Python suffices."""
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = _CRC_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF
