"""The sandbox's own BSON order of shard-key values: a port of MongoDB's KeyString.

`encode(value)` gives bytes whose plain byte order is MongoDB's comparison order of the value
(document, array or scalar); `compare` compares two values through it. It reads the BSON that
pymongo writes for the value, the bytes a real server receives, and shares no code with
zonectl.model.keys: tests/model/test_key_order_differential.py holds the two against each other.

Ported from mongodb/mongo:
* src/mongo/db/storage/key_string.cpp: the `CType` byte of each type (the type order of
  `canonicalizeBSONType`, src/mongo/bson/bsontypes.h); `BuilderBase::_appendBson` (an object
  element is its generic CType, its field name with its NUL, then its value: type, then name,
  then value), `_appendArray` (values only, then 0), `_appendStringLike` (NUL written 00 FF,
  then 0; Symbol equals String), `_appendBinData` (length from the BSON, i.e. with subtype 2's
  inner length, then subtype, then bytes), `_appendDate` (sign bit flipped), `_appendTimestamp`
  (unsigned), `_appendRegex` (pattern, 0, flags, 0), `_appendDBRef`, `_appendCodeWString`;
* src/mongo/bson/bsonelement.cpp `compareElementValues` and `BSONElement::woCompare`, the order
  the config server applies to chunk and zone bounds, which KeyString reproduces;
* src/mongo/base/compare_numbers.h: int32, int64, double and decimal compare by exact value
  (`compareLongToDouble`, `compareDecimalToDouble`), every NaN is equal and below all numbers,
  -0.0 equals 0.0. Numbers are written as sign, decimal magnitude and digits of that exact value
  rather than KeyString's binary integer/fraction layout; the order is the same.
"""

from __future__ import annotations

import struct
import uuid
from typing import Any

import bson

from zonectl.sandbox.codec import CODEC

# key_string.cpp, namespace CType.
_MINKEY, _UNDEFINED, _NULLISH, _NUMERIC, _STRINGLIKE = 10, 15, 20, 30, 60
_OBJECT, _ARRAY, _BINDATA, _OID, _BOOL, _DATE, _TIMESTAMP = 70, 80, 90, 100, 110, 120, 130
_REGEX, _DBREF, _CODE, _CODE_W_SCOPE, _MAXKEY = 140, 150, 160, 170, 240
_END = 0  # closes an object or array: below every CType, so a prefix is smaller

# Numeric classes in value order, inside KeyString's kNumericNaN..kNumericPositiveLargeMagnitude.
_NUM_NAN, _NUM_NEG_INF, _NUM_NEG = _NUMERIC, _NUMERIC + 1, _NUMERIC + 2
_NUM_ZERO, _NUM_POS, _NUM_POS_INF = _NUMERIC + 11, _NUMERIC + 20, _NUMERIC + 21
_MAGNITUDE_BIAS = 1 << 15  # decimal magnitudes lie within -6176..6145
_INVERT_DIGITS = bytes.maketrans(b"0123456789", bytes(0xFF - c for c in b"0123456789"))

# BSON element type byte -> generic CType (key_string.cpp bsonTypeToGenericKeyStringType).
_GENERIC = {
    0x01: _NUMERIC, 0x02: _STRINGLIKE, 0x03: _OBJECT, 0x04: _ARRAY, 0x05: _BINDATA,
    0x06: _UNDEFINED, 0x07: _OID, 0x08: _BOOL, 0x09: _DATE, 0x0A: _NULLISH, 0x0B: _REGEX,
    0x0C: _DBREF, 0x0D: _CODE, 0x0E: _STRINGLIKE, 0x0F: _CODE_W_SCOPE, 0x10: _NUMERIC,
    0x11: _TIMESTAMP, 0x12: _NUMERIC, 0x13: _NUMERIC, 0xFF: _MINKEY, 0x7F: _MAXKEY,
}  # fmt: skip
_VALUELESS = {0x06: _UNDEFINED, 0x0A: _NULLISH, 0xFF: _MINKEY, 0x7F: _MAXKEY}

_NULL_KEY, _FALSE_KEY, _TRUE_KEY = bytes((_NULLISH,)), bytes((_BOOL,)), bytes((_BOOL + 1,))
_INT64_MIN, _INT64_END = -(1 << 63), 1 << 63  # the ints encode takes without BSON
_UUID_PREFIX = bytes((_BINDATA, 16, 4))  # _value's BinData: type, size, subtype

_I32, _I64 = struct.Struct("<i"), struct.Struct("<q")
_U64, _F64 = struct.Struct("<Q"), struct.Struct("<d")


def encode(value: Any) -> bytes:
    """Order-preserving bytes of one value as pymongo sends it (documents included)."""
    out = bytearray()
    # The two commonest key values skip the BSON round trip; the bytes are the same.
    if type(value) is int and -(1 << 63) <= value < 1 << 63:
        _exact(value < 0, abs(value), 0, out)
        return bytes(out)
    if type(value) is str:
        out.append(_STRINGLIKE)
        _string(value.encode(), out)
        return bytes(out)
    if value is None:  # as _value writes BSON null and bool
        return _NULL_KEY
    if type(value) is bool:
        return _TRUE_KEY if value else _FALSE_KEY
    if type(value) is uuid.UUID:  # as CODEC writes it: BinData subtype 4, 16 bytes
        return _UUID_PREFIX + value.bytes
    raw = bson.encode({"": value}, codec_options=CODEC)
    _value(raw, 6, raw[4], out)  # 4 size bytes, the type byte, the empty name's NUL
    return bytes(out)


def encode_document(raw: bytes) -> bytes:
    """Order-preserving bytes of a raw BSON document; equals `encode` of its decoded form."""
    out = bytearray((_OBJECT,))
    _elements(raw, 4, out, named=True)
    return bytes(out)


def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 as MongoDB orders the two values."""
    if (
        type(a) is int
        and type(b) is int
        and _INT64_MIN <= a < _INT64_END
        and _INT64_MIN <= b < _INT64_END
    ):
        return (a > b) - (a < b)  # what their encodings give (encode orders numbers by value)
    ea, eb = encode(a), encode(b)
    return (ea > eb) - (ea < eb)


def _elements(raw: bytes, pos: int, out: bytearray, *, named: bool) -> int:
    """The elements from `pos` to the document's closing 0; returns the position after it."""
    while True:
        btype = raw[pos]
        if btype == 0:
            out.append(_END)
            return pos + 1
        name_end = raw.index(0, pos + 1)
        if named:
            out.append(_GENERIC[btype])
            out += raw[pos + 1 : name_end + 1]
        pos = _value(raw, name_end + 1, btype, out)


def _value(raw: bytes, pos: int, btype: int, out: bytearray) -> int:
    """Append the value of type `btype` that starts at `pos`; returns the position after it."""
    if btype in (0x01, 0x10, 0x12, 0x13):
        return _number(raw, pos, btype, out)
    if btype in (0x02, 0x0D, 0x0E):
        end = pos + 4 + _int32(raw, pos)
        out.append(_CODE if btype == 0x0D else _STRINGLIKE)
        _string(raw[pos + 4 : end - 1], out)
        return end
    if btype in (0x03, 0x04):
        out.append(_OBJECT if btype == 0x03 else _ARRAY)
        return _elements(raw, pos + 4, out, named=btype == 0x03)
    if btype == 0x05:
        size = _int32(raw, pos)
        out.append(_BINDATA)
        out += bytes((size,)) if size < 0xFF else b"\xff" + size.to_bytes(4, "big")
        out += raw[pos + 4 : pos + 5 + size]  # the subtype byte, then the bytes
        return pos + 5 + size
    if btype == 0x07:
        out.append(_OID)
        out += raw[pos : pos + 12]
        return pos + 12
    if btype == 0x08:
        out.append(_BOOL + (raw[pos] != 0))
        return pos + 1
    if btype == 0x09:
        out.append(_DATE)
        out += (_I64.unpack_from(raw, pos)[0] + (1 << 63)).to_bytes(8, "big")
        return pos + 8
    if btype == 0x11:
        out.append(_TIMESTAMP)
        out += _U64.unpack_from(raw, pos)[0].to_bytes(8, "big")  # seconds high, increment low
        return pos + 8
    if btype == 0x0B:
        end = raw.index(0, raw.index(0, pos) + 1) + 1
        out.append(_REGEX)
        out += raw[pos:end]
        return end
    if btype == 0x0C:
        size = _int32(raw, pos)
        out.append(_DBREF)
        out += (size - 1).to_bytes(4, "big") + raw[pos + 4 : pos + 3 + size]
        out += raw[pos + 4 + size : pos + 16 + size]
        return pos + 16 + size
    if btype == 0x0F:
        code_end = pos + 8 + _int32(raw, pos + 4)
        out.append(_CODE_W_SCOPE)
        _string(raw[pos + 8 : code_end - 1], out)
        _elements(raw, code_end + 4, out, named=True)
        return pos + _int32(raw, pos)
    if btype in _VALUELESS:
        out.append(_VALUELESS[btype])
        return pos
    raise ValueError(f"BSON type 0x{btype:02x} is not comparable")


def _int32(raw: bytes, pos: int) -> int:
    value: int = _I32.unpack_from(raw, pos)[0]
    return value


def _string(data: bytes, out: bytearray) -> None:
    out += data.replace(b"\x00", b"\x00\xff")
    out.append(0)


def _number(raw: bytes, pos: int, btype: int, out: bytearray) -> int:
    if btype == 0x10:
        n = _int32(raw, pos)
        _exact(n < 0, abs(n), 0, out)
        return pos + 4
    if btype == 0x12:
        n = _I64.unpack_from(raw, pos)[0]
        _exact(n < 0, abs(n), 0, out)
        return pos + 8
    if btype == 0x01:
        _double(_F64.unpack_from(raw, pos)[0], out)
        return pos + 8
    _decimal128(raw[pos : pos + 16], out)
    return pos + 16


def _double(x: float, out: bytearray) -> None:
    if x != x:
        out.append(_NUM_NAN)
    elif x in (float("inf"), float("-inf")):
        out.append(_NUM_POS_INF if x > 0 else _NUM_NEG_INF)
    else:
        # A finite double is n / 2**k exactly, i.e. n * 5**k / 10**k.
        n, d = abs(x).as_integer_ratio()
        k = d.bit_length() - 1
        _exact(x < 0, n * 5**k, -k, out)


def _decimal128(bid: bytes, out: bytearray) -> None:
    """IEEE 754-2008 decimal128, binary integer decimal encoding (MongoDB's Decimal128)."""
    low, high = struct.unpack("<QQ", bid)
    negative = bool(high >> 63)
    combination = (high >> 58) & 0x1F
    if combination == 0x1F:  # NaN, quiet or signalling, either sign
        out.append(_NUM_NAN)
        return
    if combination == 0x1E:
        out.append(_NUM_NEG_INF if negative else _NUM_POS_INF)
        return
    if (high >> 61) & 0x3 == 0x3:  # an implied 100 prefix: coefficient >= 2**113, non-canonical
        exponent, coefficient = (high >> 47) & 0x3FFF, 0
    else:
        exponent, coefficient = (high >> 49) & 0x3FFF, ((high & ((1 << 49) - 1)) << 64) | low
    if coefficient >= 10**34:  # non-canonical coefficients are zero (IEEE 754-2008 3.5.2)
        coefficient = 0
    _exact(negative, coefficient, exponent - 6176, out)


def _exact(negative: bool, coefficient: int, exponent: int, out: bytearray) -> None:
    """(-1)**negative * coefficient * 10**exponent, as 0.<digits> * 10**magnitude."""
    if coefficient == 0:
        out.append(_NUM_ZERO)
        return
    text = str(coefficient)
    magnitude = len(text) + exponent
    digits = text.rstrip("0").encode()
    if negative:  # a larger magnitude or a longer digit string is smaller: invert both
        out.append(_NUM_NEG)
        out += (_MAGNITUDE_BIAS - magnitude).to_bytes(2, "big")
        out += digits.translate(_INVERT_DIGITS)
        out.append(0xFF)
    else:
        out.append(_NUM_POS)
        out += (_MAGNITUDE_BIAS + magnitude).to_bytes(2, "big")
        out += digits
        out.append(0)


def equal(a: Any, b: Any) -> bool:
    """MongoDB equality: numbers by value across types; field names and order matter."""
    return encode(a) == encode(b)


# Canonical types (canonicalizeBSONType) as `type_class` gives them, for type bracketing.
MINKEY, NULL, NUMBER, ARRAY, MAXKEY = _MINKEY, _NULLISH, _NUMERIC, _ARRAY, _MAXKEY


def type_class(key: bytes) -> int:
    """The canonical type of an encoded value: its CType, one for every number and one for
    false and true (the classes canonicalizeBSONType gives, in the same order)."""
    ctype = key[0]
    if _NUMERIC <= ctype <= _NUM_POS_INF:
        return _NUMERIC
    return _BOOL if ctype == _BOOL + 1 else ctype
