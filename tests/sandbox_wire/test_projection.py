"""find projections: only the kept fields, in the document's own order (as MongoDB's
inclusion projection returns them), whether the stored document is raw BSON (config.chunks)
or a plain document."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import bson
from bson import Binary, Code, Decimal128, Int64, ObjectId, Regex, Timestamp
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.sandbox.query.raw_projection import raw_projector
from zonectl.sandbox.query.shape import project


def test_an_inclusion_projection_keeps_the_documents_field_order(sandbox_server: Any) -> None:
    client = sandbox_server().client
    client.app.things.insert_one({"_id": 1, "a": 1, "b": 2, "c": 3})
    doc = client.app.things.find_one({}, {"c": 1, "a": 1})
    assert list(doc) == ["_id", "a", "c"]


def test_projected_chunks_equal_the_whole_chunks_cut_down(sandbox_server: Any) -> None:
    client = sandbox_server().client
    for name in ("shard-a", "shard-b"):
        client.admin.command("addShard", f"rs-{name}/{name}.sandbox:27018", name=name)
    client.admin.command("enableSharding", "app")
    client.admin.command("shardCollection", "app.events", key={"x": 1})
    for at in range(10, 200, 10):
        client.admin.command("split", "app.events", middle={"x": at})
    chunks = client.config.chunks
    whole = list(chunks.find({}).sort("min", 1))
    cut = list(chunks.find({}, {"shard": 1, "min": 1, "max": 1, "_id": 0}).sort("min", 1))
    assert len(cut) == len(whole) == 20
    for full, projected in zip(whole, cut, strict=True):
        assert list(projected) == [k for k in full if k in ("min", "max", "shard")]
        assert projected == {k: full[k] for k in ("min", "max", "shard")}


_values = st.one_of(
    st.integers(-(2**31), 2**31 - 1),
    st.integers(2**31, 2**62).map(Int64),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.booleans(),
    st.none(),
    st.just(MinKey()),
    st.just(MaxKey()),
    st.builds(ObjectId),
    st.builds(lambda: Binary(uuid.uuid4().bytes, 4)),
    st.binary(max_size=8).map(lambda b: Binary(b, 0)),
    st.datetimes(min_value=dt.datetime(1970, 1, 1), max_value=dt.datetime(2100, 1, 1)).map(
        lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)
    ),
    st.builds(Timestamp, st.integers(0, 2**31), st.integers(0, 2**31)),
    st.just(Decimal128("1.25")),
    st.just(Regex("^a.*b$", "i")),
    st.just(Code("function() {}")),
    st.just(Code("f", {"x": 1})),
    st.lists(st.integers(0, 9), max_size=3),
    st.dictionaries(st.text("xyz", min_size=1, max_size=2), st.integers(0, 9), max_size=3),
)
_names = st.text("abcdef_", min_size=1, max_size=3)


@settings(max_examples=200, deadline=None)
@given(
    doc=st.dictionaries(_names, _values, min_size=1, max_size=8),
    kept=st.sets(_names, min_size=1, max_size=4),
    keep_id=st.booleans(),
)
def test_the_raw_projection_agrees_with_decoding_then_projecting(
    doc: dict[str, Any], kept: set[str], keep_id: bool
) -> None:
    fields = dict.fromkeys(kept, True) | {"_id": keep_id}
    raw = bson.encode({"_id": 7, **doc})
    fast = raw_projector(True, fields)
    assert fast is not None
    expected = project(bson.decode(raw), True, fields)
    got = bson.decode(fast(raw))
    assert list(got) == list(expected)
    assert bson.encode(got) == bson.encode(expected)
    out = fast(raw)
    assert int.from_bytes(out[:4], "little") == len(out)  # its own length prefix


def test_exclusions_and_dotted_paths_take_the_decoding_path() -> None:
    assert raw_projector(False, {"a": False}) is None
    assert raw_projector(True, {"a.b": True}) is None
