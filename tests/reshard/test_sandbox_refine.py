"""refineCollectionShardKey in the sandbox, against what
mongo:jstests/sharding/refine_collection_shard_key_basic.js asserts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey
from pymongo.errors import OperationFailure


def _code(exc: pytest.ExceptionInfo[OperationFailure]) -> str:
    return str((exc.value.details or {}).get("codeName"))


def test_refine_errors_follow_the_basic_jstest(foo: Callable[..., Any]) -> None:
    sb = foo()
    admin = sb.client.admin
    cases: list[tuple[dict[str, Any], str]] = [
        ({"refineCollectionShardKey": "db.foo", "key": "blah"}, "TypeMismatch"),
        ({"refineCollectionShardKey": "db.foo"}, "IDLFailedToParse"),
        ({"refineCollectionShardKey": "db.foo", "key": {}}, "BadValue"),
        ({"refineCollectionShardKey": "db.foo", "key": {"oldKey": 5}}, "BadValue"),
        ({"refineCollectionShardKey": "db.foo", "key": {"a": "hashed", "b": "hashed"}},
         "BadValue"),
        ({"refineCollectionShardKey": "nodb.foo", "key": {"a": 1}}, "NamespaceNotFound"),
        ({"refineCollectionShardKey": "db.foo", "key": {"aKey": 1}}, "InvalidOptions"),
        # no index starts with the new key
        ({"refineCollectionShardKey": "db.foo", "key": {"oldKey": 1, "tenant": 1}},
         "InvalidOptions"),
    ]  # fmt: skip
    for cmd, code in cases:
        with pytest.raises(OperationFailure) as exc:
            admin.command(cmd)
        assert _code(exc) == code, cmd
    sb.client.db.bar.insert_one({"x": 1})
    with pytest.raises(OperationFailure) as exc:
        admin.command({"refineCollectionShardKey": "db.bar", "key": {"x": 1, "y": 1}})
    assert _code(exc) == "NamespaceNotSharded"


def test_sparse_or_partial_index_does_not_support_a_refine(foo: Callable[..., Any]) -> None:
    sb = foo()
    sb.client.db.foo.create_index([("oldKey", 1), ("tenant", 1)], sparse=True)
    with pytest.raises(OperationFailure) as exc:
        sb.client.admin.command(
            {"refineCollectionShardKey": "db.foo", "key": {"oldKey": 1, "tenant": 1}}
        )
    assert "Index key is sparse." in str(exc.value)


def test_same_key_is_accepted_and_changes_nothing(foo: Callable[..., Any]) -> None:
    sb = foo()
    before = sb.client.config.collections.find_one({"_id": "db.foo"})
    sb.client.admin.command({"refineCollectionShardKey": "db.foo", "key": {"oldKey": 1}})
    assert sb.client.config.collections.find_one({"_id": "db.foo"}) == before


def test_refine_extends_chunks_and_zones_and_clears_jumbo(foo: Callable[..., Any]) -> None:
    sb = foo()
    admin, config = sb.client.admin, sb.client.config
    admin.command(
        "updateZoneKeyRange", "db.foo", min={"oldKey": 200}, max={"oldKey": MaxKey()}, zone="eu"
    )
    sb.sandbox.cluster.chunks("db.foo").set_jumbo(0, True)  # a jumbo chunk before the refine
    before = config.collections.find_one({"_id": "db.foo"})
    sb.client.db.foo.create_index([("oldKey", 1), ("tenant", 1), ("z", 1)])
    admin.command({"refineCollectionShardKey": "db.foo", "key": {"oldKey": 1, "tenant": 1}})
    after = config.collections.find_one({"_id": "db.foo"})
    assert after["key"] == {"oldKey": 1, "tenant": 1}
    assert after["uuid"] == before["uuid"] and after["lastmodEpoch"] != before["lastmodEpoch"]
    chunks = list(config.chunks.find({"uuid": after["uuid"]}).sort("min", 1))
    assert [c["min"] for c in chunks] == [
        {"oldKey": MinKey(), "tenant": MinKey()},
        {"oldKey": 100, "tenant": MinKey()},
        {"oldKey": 200, "tenant": MinKey()},
    ]
    assert chunks[-1]["max"] == {"oldKey": MaxKey(), "tenant": MaxKey()}
    assert not any(c.get("jumbo") for c in chunks)
    assert [c["shard"] for c in chunks] == ["s0", "s1", "s2"]
    tag = config.tags.find_one({"ns": "db.foo"})
    assert tag["min"] == {"oldKey": 200, "tenant": MinKey()}
    assert tag["max"] == {"oldKey": MaxKey(), "tenant": MaxKey()}
    assert sb.client.db.foo.count_documents({}) == 300
