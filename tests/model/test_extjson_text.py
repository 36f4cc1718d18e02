"""zonectl.model.extjson_text.dumps (what plan ids, plan fingerprints and policy digests hash)
writes exactly bson.json_util.dumps's text: hypothesis draws nested values of every BSON
type a bound, a command or a digest holds (int32's and int64's edges, Int64, bool, floats
with NaN and infinities, MinKey, MaxKey, dates, UUIDs, ObjectIds, ...), inside dicts,
lists, tuples and other mappings, under canonical and relaxed options; a value json_util
refuses raises the same error."""

from __future__ import annotations

import datetime as dt
import uuid
from collections import OrderedDict
from typing import Any

import pytest
from bson import Binary, Decimal128, Int64, ObjectId, Regex, Timestamp, json_util
from bson.binary import UuidRepresentation
from bson.max_key import MaxKey
from bson.min_key import MinKey
from bson.son import SON
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.model import extjson_text

OPTIONS = [
    json_util.CANONICAL_JSON_OPTIONS.with_options(uuid_representation=UuidRepresentation.STANDARD),
    json_util.CANONICAL_JSON_OPTIONS.with_options(tz_aware=True, tzinfo=dt.UTC),
    json_util.RELAXED_JSON_OPTIONS.with_options(uuid_representation=UuidRepresentation.STANDARD),
    json_util.LEGACY_JSON_OPTIONS,
]

LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from([2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 0, 2**63 - 1, -(2**63)]),
    st.integers(-(2**63), 2**63 - 1).map(Int64),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.just(MinKey()),
    st.just(MaxKey()),
    st.uuids(),
    st.binary(max_size=12).map(lambda b: ObjectId(b.ljust(12, b"\0"))),
    st.binary(max_size=6).map(Binary),
    st.decimals(-(10**6), 10**6, allow_nan=False, places=3).map(lambda d: Decimal128(str(d))),
    st.datetimes(timezones=st.just(dt.UTC)).map(lambda d: d.replace(microsecond=0)),
    st.just(Timestamp(5, 1)),
    st.just(Regex("^a", "i")),
)
KEYS = st.text(max_size=4)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(KEYS, inner, max_size=3),
        st.dictionaries(KEYS, inner, max_size=3).map(lambda d: SON(d.items())),
        st.dictionaries(KEYS, inner, max_size=3).map(OrderedDict),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(VALUES, st.sampled_from(OPTIONS), st.sampled_from([{}, {"sort_keys": False}]))
def test_the_text_of_json_util_dumps(value: Any, options: Any, kwargs: dict[str, Any]) -> None:
    expected = _outcome(lambda: json_util.dumps(value, json_options=options, **kwargs))
    assert _outcome(lambda: extjson_text.dumps(value, options, **kwargs)) == expected


def _outcome(call: Any) -> tuple[Any, str]:
    """The text, or the error raised (a UUID without a representation)."""
    try:
        return "text", call()
    except Exception as exc:
        return type(exc), str(exc)


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, -(2**31), 2**31 - 1, 2**31, -(2**31) - 1, True, False, None]},
        [MinKey(), MaxKey(), {"x": MinKey()}, ("t", 1)],
        {"u": uuid.UUID(int=7), "s": frozenset({1, 2})},
        {1: "int key", 2.5: "float key"},
    ],
)
def test_edges(value: Any) -> None:
    options = OPTIONS[0]
    assert extjson_text.dumps(value, options) == json_util.dumps(value, json_options=options)


@pytest.mark.parametrize("value", [{"when": object()}, [uuid.UUID(int=1)]])
def test_what_json_util_refuses_raises_the_same(value: Any) -> None:
    options = json_util.CANONICAL_JSON_OPTIONS  # no uuid representation: UUIDs refused
    expected = _outcome(lambda: json_util.dumps(value, json_options=options))
    assert expected[0] in (TypeError, ValueError)
    assert _outcome(lambda: extjson_text.dumps(value, options)) == expected
