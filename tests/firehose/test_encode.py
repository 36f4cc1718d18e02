"""encode_boundary / boundary_value: the boundary as a shard-key value of each type."""

from __future__ import annotations

import datetime as dt

import pytest
from bson import BSON, Int64, ObjectId
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.firehose import boundary_value, encode_boundary
from zonectl.model.desired import Firehose, FirehoseType
from zonectl.model.keys import compare

UTC = dt.UTC
TYPES: list[FirehoseType] = ["date", "objectId", "epochSeconds", "epochMillis"]


def z(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def test_date_is_a_utc_datetime_cut_to_milliseconds() -> None:
    value = encode_boundary(dt.datetime(2026, 5, 10, 2, 0, 0, 123456, tzinfo=UTC), "date")
    assert value == z(2026, 5, 10, 2, 0, 0, 123000)
    assert value.utcoffset() == dt.timedelta(0)


def test_date_from_another_offset_is_the_same_instant_in_utc() -> None:
    berlin = dt.datetime(2026, 5, 10, 2, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert encode_boundary(berlin, "date") == z(2026, 5, 10, 0)
    assert encode_boundary(berlin, "date").tzinfo == UTC


def test_object_id_is_the_smallest_id_of_that_second() -> None:
    value = encode_boundary(z(2026, 5, 10), "objectId")
    assert isinstance(value, ObjectId)
    assert value.generation_time == z(2026, 5, 10)
    assert value.binary[4:] == bytes(8)


def test_object_id_bound_splits_ids_by_creation_second() -> None:
    bound = encode_boundary(z(2026, 5, 10), "objectId")
    made_at = ObjectId.from_datetime(z(2026, 5, 10))
    made_later = ObjectId(ObjectId.from_datetime(z(2026, 5, 10)).binary[:4] + b"\xff" * 8)
    made_before = ObjectId(
        ObjectId.from_datetime(z(2026, 5, 9, 23, 59, 59)).binary[:4] + b"\xff" * 8
    )
    assert compare(made_at, bound) == 0
    assert compare(made_later, bound) > 0
    assert compare(made_before, bound) < 0


def test_epoch_seconds_is_an_int_within_int32_and_int64_beyond() -> None:
    small = encode_boundary(z(2026, 5, 10), "epochSeconds")
    assert small == 1778371200 and type(small) is int
    big = encode_boundary(z(2040, 1, 1), "epochSeconds")
    assert isinstance(big, Int64) and big == 2208988800


def test_epoch_millis_is_a_number_long() -> None:
    value = encode_boundary(z(2026, 5, 10, 0, 0, 0, 999999), "epochMillis")
    assert isinstance(value, Int64)
    assert value == 1778371200999


def test_every_type_survives_a_bson_round_trip_unchanged() -> None:
    for kind in TYPES:
        value = encode_boundary(z(2026, 5, 10, 0, 0, 0, 5000), kind)
        back = BSON.encode({"v": value}).decode()["v"]
        assert compare(back, value) == 0, kind
        assert type(back) is type(value) or kind == "date", kind


def test_a_naive_instant_or_an_unknown_type_is_refused() -> None:
    with pytest.raises(ValueError, match="no time zone"):
        encode_boundary(dt.datetime(2026, 5, 10), "date")
    with pytest.raises(ValueError, match="unknown firehose type"):
        encode_boundary(z(2026, 5, 10), "uuid")  # type: ignore[arg-type]


def test_boundary_value_encodes_the_window_boundary() -> None:
    policy = Firehose(
        field="_id", type="objectId", schedule="0 0 * * *", timezone="UTC", keep=2, hot="hot"
    )
    assert boundary_value(policy, z(2026, 5, 10, 12)) == ObjectId.from_datetime(z(2026, 5, 9))


instants = st.datetimes(
    min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2090, 1, 1), timezones=st.just(UTC)
)


@settings(max_examples=200, deadline=None)
@given(a=instants, b=instants, kind=st.sampled_from(TYPES))
def test_encoding_preserves_order_in_bson(
    a: dt.datetime, b: dt.datetime, kind: FirehoseType
) -> None:
    # Order up to the type's resolution: a later instant never encodes smaller.
    if a > b:
        a, b = b, a
    assert compare(encode_boundary(a, kind), encode_boundary(b, kind)) <= 0


@settings(max_examples=100, deadline=None)
@given(
    now=st.datetimes(
        min_value=dt.datetime(2024, 1, 1), max_value=dt.datetime(2030, 1, 1), timezones=st.just(UTC)
    ),
    step=st.timedeltas(min_value=dt.timedelta(days=1), max_value=dt.timedelta(days=40)),
    kind=st.sampled_from(TYPES),
    tz=st.sampled_from(["UTC", "Europe/Berlin", "America/New_York"]),
)
def test_boundaries_increase_with_now_in_bson_order(
    now: dt.datetime, step: dt.timedelta, kind: FirehoseType, tz: str
) -> None:
    policy = Firehose(field="ts", type=kind, schedule="0 0 * * *", timezone=tz, keep=1, hot="hot")
    # A day or more later there is always a newer daily tick: strictly greater.
    assert compare(boundary_value(policy, now), boundary_value(policy, now + step)) < 0
