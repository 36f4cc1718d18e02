"""model/keys: the BSON total order. Property tests over generated values (every shard-key
type, mixed numerics, documents, arrays) and the reference's §8 examples."""

from __future__ import annotations

import datetime as dt
import math
import uuid
from decimal import Decimal
from itertools import pairwise
from typing import Any

import pytest
from bson import Binary, Code, Decimal128, Int64, ObjectId, Regex, Timestamp
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.model.keys import (
    bson_equal,
    compare,
    format_value,
    pad_bound,
    ranges_overlap,
    sort_key,
)

settings.register_profile("keys", max_examples=200, deadline=None)
SETTINGS = settings(max_examples=200, deadline=None)

_dates = st.datetimes(
    min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2200, 1, 1), timezones=st.just(dt.UTC)
).map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000))
_int32 = st.integers(-(2**31), 2**31 - 1)
_int64 = st.integers(-(2**63), 2**63 - 1).map(Int64)
_small = st.integers(-5, 5)  # collisions across numeric types are the interesting cases
_numbers = st.one_of(
    _int32,
    _int64,
    _small,
    _small.map(Int64),
    _small.map(float),
    _small.map(lambda n: Decimal128(str(n))),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=False, places=3, min_value=-(10**6), max_value=10**6).map(
        lambda d: Decimal128(str(d))
    ),
    st.just(Decimal128("NaN")),
    st.just(Decimal128("Infinity")),
)
scalars = st.one_of(
    st.just(MinKey()),
    st.just(MaxKey()),
    st.none(),
    st.booleans(),
    _numbers,
    st.text(max_size=4),
    st.binary(max_size=4).map(lambda b: Binary(b, 0)),
    st.binary(max_size=4).map(lambda b: Binary(b, 5)),
    st.uuids(),
    st.binary(min_size=12, max_size=12).map(ObjectId),
    _dates,
    st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)).map(lambda t: Timestamp(*t)),
    st.text(max_size=3).map(lambda p: Regex(p, "i")),
    st.text(max_size=3).map(Code),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.dictionaries(st.sampled_from(["a", "b", "_id"]), inner, max_size=3),
        st.lists(inner, max_size=3),
    ),
    max_leaves=6,
)


@SETTINGS
@given(values, values)
def test_compare_is_antisymmetric(a: Any, b: Any) -> None:
    assert compare(a, b) == -compare(b, a)


@SETTINGS
@given(values, values, values)
def test_compare_is_transitive(a: Any, b: Any, c: Any) -> None:
    x, y, z = sorted([a, b, c], key=sort_key)
    assert compare(x, y) <= 0 and compare(y, z) <= 0 and compare(x, z) <= 0


@SETTINGS
@given(st.lists(values, min_size=2, max_size=8))
def test_sorting_gives_a_total_order_with_consistent_equality(items: list[Any]) -> None:
    ordered = sorted(items, key=sort_key)
    for left, right in pairwise(ordered):
        assert compare(left, right) in (-1, 0)
        assert (compare(left, right) == 0) == bson_equal(left, right)
    assert all(compare(v, v) == 0 for v in items)


@SETTINGS
@given(_small)
def test_numbers_compare_by_value_across_types(n: int) -> None:
    forms = [n, Int64(n), float(n), Decimal128(str(n)), Decimal(n)]
    assert all(compare(a, b) == 0 for a in forms for b in forms)
    assert compare({"x": n}, {"x": Int64(n)}) == 0
    above = Decimal128(str(Decimal(n) + Decimal("0.1")))
    assert compare(n, n + 0.5) == -1 and compare(Int64(n), above) == -1


@SETTINGS
@given(values)
def test_minkey_and_maxkey_bound_everything(value: Any) -> None:
    assert compare(MinKey(), value) <= 0 <= compare(MaxKey(), value)


@SETTINGS
@given(st.floats(allow_nan=False))
def test_nan_is_below_every_other_number(x: float) -> None:
    assert compare(math.nan, x) == -1
    assert compare(Decimal128("NaN"), math.nan) == 0


# Reference §8: MinKey < null < numbers < string < object < array < BinData < ObjectId
# < bool < date < Timestamp < regex < ... < MaxKey.
TYPE_ORDER = [
    MinKey(),
    None,
    -1e300,
    "",
    {},
    [],
    Binary(b"", 0),
    ObjectId("000000000000000000000000"),
    False,
    dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
    Timestamp(0, 0),
    Regex("", ""),
    Code(""),
    MaxKey(),
]


def test_canonical_type_order_of_reference_section_8() -> None:
    for low, high in pairwise(TYPE_ORDER):
        assert compare(low, high) == -1, (low, high)


@pytest.mark.parametrize(
    "low,high",
    [
        ({"x": 0}, {"x": 0, "y": MinKey()}),  # a prefix is smaller
        ({"a": 1}, {"b": 0}),  # same type rank: field name decides
        ({"b": 0}, {"a": "x"}),  # type rank of the value comes before the field name
        ({"x": 10, "y": 5}, {"x": 10, "y": 6}),  # compound: second field decides
        ({"x": MaxKey()}, {"x": MaxKey(), "y": MinKey()}),
        (True, dt.datetime(1, 1, 1, tzinfo=dt.UTC)),  # bool < date whatever the values
        ("Z", "a"),  # strings by code point (UTF-8 bytes)
        ("a", "é"),
        (Binary(b"\xff", 0), Binary(b"\x00\x00", 0)),  # BinData: length first
        (Binary(b"\x01", 0), Binary(b"\x00", 1)),  # then subtype
        (uuid.UUID(int=0), ObjectId("000000000000000000000000")),  # UUID is BinData
        (Timestamp(1, 9), Timestamp(2, 0)),
    ],
)
def test_reference_examples_order(low: Any, high: Any) -> None:
    assert compare(low, high) == -1
    assert compare(high, low) == 1


def test_equal_bounds_of_different_numeric_types_are_one_range() -> None:
    a = ({"x": 0}, {"x": 10})
    b = ({"x": Int64(0)}, {"x": 10.0})
    assert bson_equal(a[0], b[0]) and bson_equal(a[1], b[1])
    assert ranges_overlap(*a, *b)
    assert not ranges_overlap({"x": 0}, {"x": 5}, {"x": 5}, {"x": 9})  # touching


def test_pad_bound_fills_trailing_fields_with_minkey_in_key_order() -> None:
    padded = pad_bound({"country": "DE"}, {"country": 1, "userId": 1})
    assert list(padded) == ["country", "userId"]
    assert isinstance(padded["userId"], MinKey)


def test_format_value_renders_shell_like() -> None:
    assert format_value({"ts": dt.datetime(2026, 1, 2, tzinfo=dt.UTC), "_id": MinKey()}) == (
        '{ ts: ISODate("2026-01-02T00:00:00.000Z"), _id: MinKey }'
    )
    assert format_value(Int64(5)) == "NumberLong(5)"
    assert format_value(uuid.UUID(int=1)) == 'UUID("00000000-0000-0000-0000-000000000001")'
    assert format_value(Binary(b"\x00\x01", 0)) == 'BinData(0, "AAE=")'
    assert format_value(b"\x00\x01") == 'BinData(0, "AAE=")'
    assert format_value(Timestamp(1, 2)) == "Timestamp(1, 2)"
