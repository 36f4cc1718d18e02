"""A saved plan writes BSON values exactly as bson.json_util's canonical extended JSON does
(zonectl.plan.serialize writes the common ones itself, for speed): over generated bounds
of every BSON type a shard key holds, and they load back equal."""

from __future__ import annotations

import datetime as dt
import json

from bson import Binary, Decimal128, Int64, ObjectId, json_util
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.plan.ops import AssignZoneRange
from zonectl.plan.serialize import op_from_doc, op_to_doc

OPTS = json_util.CANONICAL_JSON_OPTIONS.with_options(tz_aware=True, tzinfo=dt.UTC)

LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from([2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32, 2**63 - 1]),  # int32's edges
    st.integers(-(2**63), 2**63 - 1).map(Int64),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.just(MinKey()),
    st.just(MaxKey()),
    st.binary(max_size=4).map(lambda b: ObjectId(b.ljust(12, b"\0"))),
    st.binary(max_size=6).map(Binary),
    st.decimals(-(10**6), 10**6, allow_nan=False, places=3).map(lambda d: Decimal128(str(d))),
    st.datetimes(timezones=st.just(dt.UTC)).map(lambda d: d.replace(microsecond=0)),
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
BOUNDS = st.dictionaries(st.text(min_size=1, max_size=5), VALUES, min_size=1, max_size=3)


@given(lo=BOUNDS, hi=BOUNDS)
@settings(max_examples=200, deadline=None)
def test_bounds_are_written_as_json_util_writes_them(lo: dict, hi: dict) -> None:
    op = AssignZoneRange("app.c", "hot", lo, hi)
    doc = op_to_doc(op)
    for name, value in (("min", lo), ("max", hi)):
        expected = json.loads(json_util.dumps(value, json_options=OPTS))
        assert doc["args"][name] == expected
        assert doc["command"][name] == expected
    back = op_from_doc(json.loads(json.dumps(doc)))
    assert json_util.dumps(back.min, json_options=OPTS) == json_util.dumps(lo, json_options=OPTS)
