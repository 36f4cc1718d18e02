"""BSON order, two ways: zonectl.model.keys (what the planner uses) against the sandbox's own
KeyString port (zonectl.sandbox.keyorder). Neither may silently follow the other: hypothesis
draws values of every type a shard key can hold and both must give the same sign for every
pair and the same equality. Then MongoDB's documented order, pinned on both."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Callable
from decimal import Decimal
from itertools import pairwise
from typing import Any

import pytest
from bson import Binary, Code, DBRef, Decimal128, Int64, ObjectId, Regex, Timestamp
from bson.datetime_ms import DatetimeMS
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.model import keys
from zonectl.sandbox import keyorder

SETTINGS = settings(max_examples=200, deadline=None)

_edges = [0, 1, 2**31 - 1, 2**31, 2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1]
_ints = st.one_of(
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**63), 2**63 - 1).map(Int64),
    st.sampled_from(_edges + [-n for n in _edges] + [-(2**63)]).map(Int64),
    st.integers(-4, 4),
)
_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 2.0**53, 2.0**63, -(2.0**63), 2.0**64]),
    st.integers(-(2**64), 2**64).map(float),  # integral doubles around the int64 edges
    st.integers(-32, 32).map(lambda n: n / 8),  # values a decimal or an int can equal
)
_decimals = st.one_of(
    st.sampled_from(
        ["NaN", "-NaN", "sNaN", "Infinity", "-Infinity", "-0", "0E+300", "1E-6176"]
    ).map(Decimal128),
    st.integers(-32, 32).map(lambda n: Decimal128(str(Decimal(n) / 8))),
    st.integers(-(2**64), 2**64).map(lambda n: Decimal128(str(n))),
    st.builds(
        lambda c, e: Decimal128(f"{c}E{e}"),
        st.integers(-(10**34) + 1, 10**34 - 1),
        st.integers(-6176, 6111 - 33),
    ),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(lambda f: Decimal128(repr(f))),
    st.binary(min_size=16, max_size=16).map(Decimal128.from_bid),  # any bits, non-canonical too
)
_strings = st.text(alphabet=["\x00", "\x01", "a", "b", "é", "\uffff", "\U0001f600"], max_size=3)
_binary = st.builds(
    Binary, st.binary(max_size=4), st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 0x80, 0xFF])
)


def _offset(hours: int) -> dt.tzinfo:
    return dt.timezone(dt.timedelta(hours=hours))


_dates = st.one_of(
    st.datetimes(
        min_value=dt.datetime(1, 1, 1),
        max_value=dt.datetime(9999, 12, 31),
        timezones=st.just(dt.UTC),
    ),
    st.datetimes(  # naive ones are UTC; an offset may not push the instant out of range
        min_value=dt.datetime(2, 1, 1),
        max_value=dt.datetime(9998, 12, 31),
        timezones=st.none() | st.integers(-23, 23).map(_offset),
    ),
    st.integers(-(2**63), 2**63 - 1).map(DatetimeMS),
    st.integers(-3, 3).map(DatetimeMS),
)
_timestamps = st.builds(
    Timestamp,
    st.one_of(st.integers(0, 3), st.integers(0, 2**32 - 1)),
    st.one_of(st.integers(0, 3), st.integers(0, 2**32 - 1)),
)
_flags = st.sets(st.sampled_from("ilmsux")).map(lambda f: "".join(sorted(f)))
_regexes = st.one_of(
    st.builds(Regex, st.text(alphabet="ab.", max_size=2), _flags),
    st.builds(re.compile, st.text(alphabet="ab", max_size=2)),
)
_oids = st.binary(min_size=12, max_size=12).map(ObjectId) | st.sampled_from(
    [ObjectId(b"\x00" * 12), ObjectId(b"\x00" * 11 + b"\x01"), ObjectId(b"\xff" * 12)]
)
_scalars = st.one_of(
    st.just(MinKey()),
    st.just(MaxKey()),
    st.none(),
    st.booleans(),
    _ints,
    _floats,
    _decimals,
    _strings,
    _binary,
    st.uuids(),
    _oids,
    _dates,
    _timestamps,
    _regexes,
    st.builds(Code, st.text(alphabet="ab", max_size=2)),
)
_names = st.sampled_from(["a", "b", "_id", "$ref", "$id", ""])


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.dictionaries(_names, inner, max_size=3),
        st.lists(inner, max_size=3),
        st.builds(
            Code, st.text(alphabet="ab", max_size=2), st.dictionaries(_names, inner, max_size=2)
        ),
        st.builds(DBRef, st.sampled_from(["c", "d"]), inner),
    )


_values = st.recursive(_scalars, _containers, max_leaves=5)
_bound_value = st.one_of(st.just(MinKey()), st.just(MaxKey()), _scalars)
# Compound shard-key bounds: the key pattern's fields (a prefix), MinKey/MaxKey at any place.
_bounds = st.integers(1, 3).flatmap(
    lambda n: st.lists(_bound_value, min_size=n, max_size=n).map(
        lambda vals: dict(zip(["k", "t", "_id"], vals, strict=False))
    )
)
_any = st.one_of(_values, _bounds)


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def _agree(a: Any, b: Any) -> None:
    model, port = keys.compare(a, b), keyorder.compare(a, b)
    assert _sign(model) == _sign(port), (a, b, model, port)
    assert keys.bson_equal(a, b) == (keyorder.encode(a) == keyorder.encode(b)), (a, b)
    assert (keys.sort_key(a) == keys.sort_key(b)) == (port == 0), (a, b)


@SETTINGS
@given(_any, _any)
def test_both_orders_agree_on_every_pair(a: Any, b: Any) -> None:
    _agree(a, b)
    _agree(b, a)


@SETTINGS
@given(_bounds, _bounds)
def test_compound_bounds_agree(a: dict[str, Any], b: dict[str, Any]) -> None:
    _agree(a, b)


# Within one type family the values collide and the type-specific rules decide: draw both
# sides of a pair from the same family.
_FAMILIES = [
    st.one_of(_ints, _floats, _decimals),
    _strings,
    st.one_of(_binary, st.uuids(), st.binary(max_size=4)),
    _oids,
    _dates,
    _timestamps,
    _regexes,
    st.builds(Code, st.text(alphabet="ab", max_size=2), st.none() | st.just({})),
    st.builds(DBRef, st.sampled_from(["c", "d"]), _scalars) | st.dictionaries(_names, _scalars),
]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(_FAMILIES).flatmap(lambda family: st.tuples(family, family)))
def test_same_family_pairs_agree(pair: tuple[Any, Any]) -> None:
    _agree(*pair)
    _agree(pair[1], pair[0])


@SETTINGS
@given(st.lists(_scalars, min_size=2, max_size=10))
def test_sorting_by_the_port_is_sorted_for_the_model(values: list[Any]) -> None:
    ordered = sorted(values, key=keyorder.encode)
    for low, high in pairwise(ordered):
        assert keys.compare(low, high) <= 0, (low, high)
    assert sorted(values, key=keys.sort_key) == sorted(ordered, key=keys.sort_key)


def test_raw_documents_encode_like_their_decoded_form() -> None:
    import bson

    doc = {"k": Int64(5), "t": MinKey(), "u": {"a": [1, "x"], "_id": None}}
    assert keyorder.encode_document(bson.encode(doc)) == keyorder.encode(doc)


# MongoDB's documented order, https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/
# ("MinKey, Null, Numbers, Symbol/String, Object, Array, BinData, ObjectId, Boolean, Date,
# Timestamp, Regular Expression, MaxKey"; BinData by length, then subtype, then bytes; objects
# by type, then field name, then value, the shorter first), and compare_numbers.h for numbers.
ASCENDING: list[Any] = [
    MinKey(),
    None,
    float("nan"),
    float("-inf"),
    Decimal128("-1E+400"),  # below every double but -inf
    -(2**63),
    -1.5,
    Int64(-1),
    0,
    Decimal128("1E-400"),  # above 0.0 though no double lies between
    5e-324,
    1,
    2**53,
    Int64(2**53 + 1),  # a double cannot hold it: above 2.0**53, below the next double
    2.0**53 + 2,
    Int64(2**63 - 1),
    2.0**63,
    Decimal128("1E+400"),
    float("inf"),
    "",
    "a",
    "a\x00",
    "a\x01",
    "b",
    {},
    {"a": MinKey()},
    {"a": 1},
    {"a": 1, "b": 1},
    {"b": 0},  # the element's type decides before its name
    {"a": "x"},
    [],
    [1],
    Binary(b"z", 5),
    Binary(b"ab", 0),
    Binary(b"ab", 1),
    Binary(b"ac", 1),
    ObjectId(b"\x00" * 12),
    ObjectId(b"\xff" * 12),
    False,
    True,
    dt.datetime(1969, 12, 31, tzinfo=dt.UTC),
    dt.datetime(2024, 1, 1, tzinfo=dt.UTC),
    Timestamp(0, 0),  # any Timestamp is above any Date
    Timestamp(1, 0),
    Regex("a", ""),
    Regex("a", "i"),
    Regex("b", ""),
    MaxKey(),
]
EQUAL: list[tuple[Any, Any]] = [
    (0, -0.0),
    (Int64(3), 3.0),
    (3, Decimal128("3.000")),
    (Decimal128("NaN"), float("nan")),
    (Decimal128("-0"), 0),
    (0.5, Decimal128("0.5")),
    ({"a": 1}, {"a": Int64(1)}),
    (uuid.UUID(int=7), Binary(uuid.UUID(int=7).bytes, 4)),
    (b"ab", Binary(b"ab", 0)),
]
COMPARES: dict[str, Callable[[Any, Any], int]] = {
    "model.keys": keys.compare,
    "sandbox.keyorder": keyorder.compare,
}


@pytest.mark.parametrize("name", COMPARES)
def test_documented_order(name: str) -> None:
    compare = COMPARES[name]
    for low, high in pairwise(ASCENDING):
        assert compare(low, high) < 0, (low, high)
        assert compare(high, low) > 0, (high, low)


@pytest.mark.parametrize("name", COMPARES)
def test_documented_equalities(name: str) -> None:
    for a, b in EQUAL:
        assert COMPARES[name](a, b) == 0, (a, b)
