"""Top-level inclusion projections applied to raw BSON bytes, without decoding.

A projection such as `{min: 1, max: 1, shard: 1}` on config.chunks keeps whole top-level
elements; copying their bytes in document order is what MongoDB's inclusion projection
returns (fields in the order the document has them, `_id` unless excluded), and it avoids
decoding and re-encoding every chunk of a large scan (zonectl status reads whole
namespaces this way).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping

_INT32 = struct.Struct("<i")

# Value sizes of fixed-width BSON types, by type byte (bsonspec.org).
_FIXED = {
    0x01: 8,  # double
    0x06: 0,  # undefined
    0x07: 12,  # ObjectId
    0x08: 1,  # bool
    0x09: 8,  # UTC datetime
    0x0A: 0,  # null
    0x10: 4,  # int32
    0x11: 8,  # Timestamp
    0x12: 8,  # int64
    0x13: 16,  # decimal128
    0xFF: 0,  # MinKey
    0x7F: 0,  # MaxKey
}
_STRING_LIKE = {0x02, 0x0D, 0x0E}  # string, JavaScript code, symbol: int32 length + bytes
_EMBEDDED = {0x03, 0x04, 0x0F}  # document, array, code with scope: int32 total length
# Bytes past a value's int32 length to its end: string-like, embedded, binary (subtype byte).
_SIZED = {**dict.fromkeys(_STRING_LIKE, 4), **dict.fromkeys(_EMBEDDED, 0), 0x05: 5}
_STEP = {**_FIXED, **{t: -1 - extra for t, extra in _SIZED.items()}}


def _int32(raw: bytes, offset: int) -> int:
    value: int = _INT32.unpack_from(raw, offset)[0]
    return value


def _value_end(raw: bytes, type_byte: int, start: int) -> int:
    """Offset just past the value of an element whose value begins at `start`."""
    size = _FIXED.get(type_byte)
    if size is not None:
        return start + size
    if type_byte in _STRING_LIKE:
        return start + 4 + _int32(raw, start)
    if type_byte in _EMBEDDED:
        return start + _int32(raw, start)
    if type_byte == 0x05:  # binary: int32 length, subtype byte, bytes
        return start + 5 + _int32(raw, start)
    if type_byte == 0x0B:  # regex: two C strings
        return raw.index(b"\x00", raw.index(b"\x00", start) + 1) + 1
    if type_byte == 0x0C:  # DBPointer: string then ObjectId
        return start + 4 + _int32(raw, start) + 12
    raise ValueError(f"unknown BSON type 0x{type_byte:02x}")


def project_top_level(raw: bytes, keep: frozenset[bytes]) -> bytes:
    """The document with only the top-level elements named in `keep`, in document order."""
    parts: list[bytes] = []
    pos, end = 4, len(raw) - 1  # after the int32 length, before the trailing NUL
    index, step_of, unpack = raw.index, _STEP.get, _INT32.unpack_from
    while pos < end:
        type_byte = raw[pos]
        name_end = index(0, pos + 1)
        # _value_end's sizes, the commonest types inline: a fixed size (>= 0), or -1 - the
        # bytes past an int32 length; the others through _value_end.
        step = step_of(type_byte)
        if step is None:
            value_end = _value_end(raw, type_byte, name_end + 1)
        elif step >= 0:
            value_end = name_end + 1 + step
        else:
            value_end = name_end - step + unpack(raw, name_end + 1)[0]
        if raw[pos + 1 : name_end] in keep:
            parts.append(raw[pos:value_end])
        pos = value_end
    body = b"".join(parts)
    return _INT32.pack(len(body) + 5) + body + b"\x00"


def raw_projector(inclusion: bool, fields: Mapping[str, bool]) -> Callable[[bytes], bytes] | None:
    """A bytes-to-bytes projector when the projection keeps whole top-level fields; None
    when it needs the decoded document (exclusions, dotted paths)."""
    if not inclusion or any("." in field or "\x00" in field for field in fields):
        return None
    keep = {field.encode() for field, include in fields.items() if include and field != "_id"}
    if fields.get("_id", True):
        keep.add(b"_id")
    frozen = frozenset(keep)
    return lambda raw: project_top_level(raw, frozen)
