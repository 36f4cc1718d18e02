"""A plan's fingerprint and plan_id hash canonical extended JSON: canonical_json converts the
common types itself and must write the very text json_util.dumps(..., CANONICAL) writes,
for every BSON value a cluster's metadata or an op's command can hold (nested documents and
arrays, ints at the int32/int64 edges, booleans, MinKey/MaxKey, a uuid as Binary or UUID,
and the types it hands to json_util)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from bson import json_util
from bson.binary import Binary
from bson.decimal128 import Decimal128
from bson.int64 import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey
from bson.objectid import ObjectId
from bson.son import SON
from bson.timestamp import Timestamp
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.plan.plan import CANONICAL, canonical_json

EDGES = [0, 1, -1, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**63 - 1, -(2**63), 2**64]

leaves = st.one_of(
    st.text(max_size=5),
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.sampled_from(EDGES),
    st.floats(allow_nan=False),
    st.just(MinKey()),
    st.just(MaxKey()),
    st.builds(lambda b, t: Binary(b, t), st.binary(max_size=16), st.sampled_from([0, 3, 4, 5])),
    st.builds(uuid.UUID, st.uuids().map(str)),
    st.builds(Int64, st.integers(-(2**63), 2**63 - 1)),
    st.just(Decimal128("1.5")),
    st.just(ObjectId("5f0c9a7b9b8e4a0001000000")),
    st.just(Timestamp(5, 1)),
    st.just(dt.datetime(2026, 11, 27, 12, 0, tzinfo=dt.UTC)),
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=4), inner, max_size=4),
        st.dictionaries(st.text(max_size=4), inner, max_size=3).map(lambda d: SON(d.items())),
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(values)
def test_canonical_json_writes_json_utils_text(value: Any) -> None:
    assert canonical_json(value) == json_util.dumps(value, json_options=CANONICAL)


def test_a_range_op_and_a_collection_entry_as_json_util_writes_them() -> None:
    doc = [
        ["assign_zone_range", {"min": {"x": MinKey(), "n": 2**31}, "max": {"x": MaxKey()}}],
        ["tenants.t0000", Binary(b"\x01" * 16, 4), {"x": 1}, False, None],
    ]
    assert canonical_json(doc) == json_util.dumps(doc, json_options=CANONICAL)
