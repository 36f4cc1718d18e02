"""MongoDB query and update semantics as pymongo sees them through the sandbox."""

from __future__ import annotations

from typing import Any

import pytest
from bson import Int64, MaxKey, MinKey
from pymongo.errors import BulkWriteError, DuplicateKeyError, OperationFailure

DOCS = [
    {"_id": 1, "a": 1, "s": "x", "tags": ["red", "blue"], "sub": {"k": 1, "v": "a"}},
    {"_id": 2, "a": Int64(2), "s": "y", "tags": ["green"], "sub": {"k": 2}},
    {"_id": 3, "a": 2.5, "s": "10", "items": [{"n": 1, "q": 5}, {"n": 2, "q": 1}]},
    {"_id": 4, "a": "3", "nul": None},
    {"_id": 5, "a": MinKey(), "b": {"x": 1, "y": 2}},
    {"_id": 6, "a": MaxKey(), "b": {"y": 2, "x": 1}},
]


@pytest.fixture(scope="module")
def coll(module_sandbox_server: Any) -> Any:
    handle = module_sandbox_server()
    collection = handle.client.q.docs
    collection.insert_many(DOCS)
    return collection


def ids(coll: Any, query: dict[str, Any]) -> list[int]:
    return sorted(d["_id"] for d in coll.find(query))


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"a": 2}, [2]),  # Int64(2) equals 2
        ({"a": {"$gt": 1}}, [2, 3]),  # type bracketing: "3" and MaxKey are not > 1
        ({"a": {"$gte": "0"}}, [4]),
        ({"a": {"$lt": 2}}, [1]),
        ({"a": {"$gt": MinKey()}}, [1, 2, 3, 4, 6]),
        ({"a": {"$lt": MaxKey()}}, [1, 2, 3, 4, 5]),
        ({"a": {"$in": [1, "3"]}}, [1, 4]),
        ({"a": {"$nin": [1, "3"]}}, [2, 3, 5, 6]),
        ({"a": {"$ne": 1}}, [2, 3, 4, 5, 6]),
        ({"a": {"$eq": 2.5}}, [3]),
        ({"tags": "red"}, [1]),  # array contains
        ({"tags": ["green"]}, [2]),  # whole-array equality
        ({"sub": {"k": 1, "v": "a"}}, [1]),  # embedded document equality
        ({"sub": {"v": "a", "k": 1}}, []),  # field order matters
        ({"b": {"x": 1, "y": 2}}, [5]),
        ({"sub.k": 2}, [2]),  # dotted path
        ({"items.n": 2}, [3]),  # dotted path through an array
        ({"items.1.q": 1}, [3]),  # array index in a path
        ({"nul": None}, [1, 2, 3, 4, 5, 6]),  # null matches missing
        ({"nul": {"$exists": True}}, [4]),
        ({"tags": {"$exists": False}}, [3, 4, 5, 6]),
        ({"$or": [{"a": 1}, {"s": "y"}]}, [1, 2]),
        ({"$and": [{"a": {"$gte": 1}}, {"a": {"$lte": 2}}]}, [1, 2]),
        ({"$nor": [{"a": 1}, {"a": "3"}]}, [2, 3, 5, 6]),
        ({"a": {"$not": {"$gt": 1}}}, [1, 4, 5, 6]),
        ({"a": {"$type": "string"}}, [4]),
        ({"a": {"$type": "long"}}, [2]),
        ({"a": {"$type": "number"}}, [1, 2, 3]),
        ({"items": {"$elemMatch": {"n": 1, "q": {"$gt": 3}}}}, [3]),
        ({"items": {"$elemMatch": {"n": 2, "q": {"$gt": 3}}}}, []),
        ({"tags": {"$size": 2}}, [1]),
        ({"tags": {"$all": ["blue", "red"]}}, [1]),
        ({"s": {"$regex": "^1"}}, [3]),
    ],
)
def test_filter_operator_matches_like_mongodb(
    coll: Any, query: dict[str, Any], expected: list[int]
) -> None:
    assert ids(coll, query) == expected


def test_count_documents_and_distinct(coll: Any) -> None:
    assert coll.count_documents({"a": {"$type": "number"}}) == 3
    assert coll.estimated_document_count() == 6
    assert sorted(coll.distinct("tags")) == ["blue", "green", "red"]


def test_sort_skip_limit_and_projection(coll: Any) -> None:
    docs = list(coll.find({}, {"s": 1, "_id": 0}).sort("s", -1).skip(1).limit(2))
    assert docs == [{"s": "x"}, {"s": "10"}]
    assert list(coll.find({"_id": 1}, {"tags": 0, "sub": 0, "s": 0})) == [{"_id": 1, "a": 1}]


def test_natural_order_reads_in_insertion_order_or_backwards_and_stops_at_the_limit(
    coll: Any,
) -> None:
    # Inserted 1..6; {$natural: -1} is how a tool reads a capped collection newest first.
    assert [d["_id"] for d in coll.find({}).sort("$natural", 1)] == [1, 2, 3, 4, 5, 6]
    newest = coll.find({"_id": {"$gte": 2}}).sort("$natural", -1).limit(2)
    assert [d["_id"] for d in newest] == [6, 5]


def test_unknown_operator_is_bad_value(coll: Any) -> None:
    with pytest.raises(OperationFailure) as info:
        list(coll.find({"a": {"$foo": 1}}))
    assert info.value.code == 2
    assert "unknown operator: $foo" in str(info.value)


def test_aggregate_group_count_unwind(coll: Any) -> None:
    out = list(
        coll.aggregate(
            [
                {"$match": {"tags": {"$exists": True}}},
                {"$unwind": "$tags"},
                {"$group": {"_id": "$_id", "n": {"$sum": 1}, "t": {"$push": "$tags"}}},
                {"$sort": {"_id": 1}},
            ]
        )
    )
    assert out == [{"_id": 1, "n": 2, "t": ["red", "blue"]}, {"_id": 2, "n": 1, "t": ["green"]}]
    counted = list(coll.aggregate([{"$match": {"a": {"$gte": 1}}}, {"$count": "n"}]))
    assert counted == [{"n": 3}]


def test_aggregate_without_cursor_option_fails(coll: Any) -> None:
    with pytest.raises(OperationFailure) as info:
        coll.database.command("aggregate", "docs", pipeline=[])
    assert info.value.code == 9


@pytest.fixture
def w(sandbox_server: Any) -> Any:
    return sandbox_server().client.w.c


def test_update_operators(w: Any) -> None:
    w.insert_one({"_id": 1, "n": 1, "arr": [1, 2], "gone": True})
    w.update_one(
        {"_id": 1},
        {"$set": {"a.b": 1}, "$inc": {"n": 2}, "$unset": {"gone": ""}, "$addToSet": {"arr": 2}},
    )
    w.update_one({"_id": 1}, {"$push": {"arr": 3}, "$pull": {"tags": "x"}})
    w.update_one({"_id": 1}, {"$pull": {"arr": {"$lt": 2}}})
    assert w.find_one({"_id": 1}) == {"_id": 1, "n": 3, "arr": [2, 3], "a": {"b": 1}}


def test_upsert_with_set_on_insert_and_replacement(w: Any) -> None:
    res = w.update_one({"k": "x"}, {"$set": {"v": 1}, "$setOnInsert": {"c": 0}}, upsert=True)
    assert res.upserted_id is not None
    assert w.find_one({"k": "x"}, {"_id": 0}) == {"k": "x", "v": 1, "c": 0}
    w.update_one({"k": "x"}, {"$set": {"v": 2}, "$setOnInsert": {"c": 9}}, upsert=True)
    assert w.find_one({"k": "x"}, {"_id": 0}) == {"k": "x", "v": 2, "c": 0}
    w.replace_one({"_id": "r"}, {"only": True}, upsert=True)
    assert w.find_one({"_id": "r"}) == {"_id": "r", "only": True}


def test_multi_update_and_delete_counts(w: Any) -> None:
    w.insert_many([{"g": 1}, {"g": 1}, {"g": 2}])
    assert w.update_many({"g": 1}, {"$set": {"h": True}}).modified_count == 2
    assert w.delete_one({"g": 1}).deleted_count == 1
    assert w.delete_many({}).deleted_count == 2


def test_duplicate_id_is_a_write_error_with_code_11000(w: Any) -> None:
    w.insert_one({"_id": 7})
    with pytest.raises(DuplicateKeyError) as info:
        w.insert_one({"_id": Int64(7)})
    assert info.value.code == 11000
    with pytest.raises(BulkWriteError) as bulk:
        w.insert_many([{"_id": 8}, {"_id": 7}, {"_id": 9}])
    details = bulk.value.details
    assert details["nInserted"] == 1
    assert details["writeErrors"][0]["index"] == 1


def test_changing_id_is_immutable_field(w: Any) -> None:
    w.insert_one({"_id": 1})
    with pytest.raises(OperationFailure) as info:
        w.update_one({"_id": 1}, {"$set": {"_id": 2}})
    assert info.value.code == 66


def test_conflicting_update_paths(w: Any) -> None:
    w.insert_one({"_id": 1})
    with pytest.raises(OperationFailure) as info:
        w.update_one({"_id": 1}, {"$set": {"a": 1}, "$inc": {"a": 1}})
    assert info.value.code == 40


def test_find_one_and_update_returns_before_or_after(w: Any) -> None:
    from pymongo import ReturnDocument

    w.insert_one({"_id": 1, "n": 1})
    before = w.find_one_and_update({"_id": 1}, {"$inc": {"n": 1}})
    after = w.find_one_and_update(
        {"_id": 1}, {"$inc": {"n": 1}}, return_document=ReturnDocument.AFTER
    )
    assert (before["n"], after["n"]) == (1, 3)
    assert w.find_one_and_delete({"_id": 1}) == {"_id": 1, "n": 3}


def test_collections_and_indexes(w: Any) -> None:
    db = w.database
    db.create_collection("made")
    assert "made" in db.list_collection_names()
    db.made.create_index("x")
    assert [i["name"] for i in db.made.list_indexes()] == ["_id_", "x_1"]
    db.made.drop()
    assert "made" not in db.list_collection_names()
    with pytest.raises(OperationFailure) as info:
        w.database.client.config.command("dropDatabase")
    assert info.value.code == 20
