"""The config.settings validator through a real client (balancer-settings.md §2.3).

Ported from jstests/sharding/config_settings_schema.js (6.2/7.0 and 8.0+ versions): the
writes a 5.0/6.0 cluster takes, what 7.0 rejects (chunksize, unknown `_id`s, autosplit),
what FCV 8.0 adds for the balancer document, and 8.3's activeWindowDOW.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pymongo.errors import OperationFailure, WriteError

from zonectl.sandbox.state import Sandbox

# (filter _id, update, upsert) cases of config_settings_schema.js, rejected from the FCV given.
REJECTED: list[tuple[str, dict[str, Any], tuple[int, int]]] = [
    ("chunksize", {"$set": {"value": -1}}, (7, 0)),
    ("chunksize", {"$set": {"value": "string"}}, (7, 0)),
    ("chunksize", {"$set": {"value": 5000}}, (7, 0)),
    ("chunksize", {"$set": {"value": 100, "extraField": 10}}, (7, 0)),
    ("notARealSetting", {"$set": {"value": 10}}, (7, 0)),
    ("autosplit", {"$set": {"enabled": True}}, (7, 0)),  # ansible community.mongodb#625
    ("balancer", {"_id": "balancer", "mode": "bad"}, (8, 0)),
    ("balancer", {"_id": "balancer", "mode": "full", "stopped": "no"}, (8, 0)),
    ("balancer", {"_id": "balancer", "mode": "full", "activeWindow": {"start": "hh.mm"}}, (8, 0)),
    ("balancer", {"_id": "balancer", "mode": "full", "stoppppped": True}, (8, 0)),
    ("balancer", {"$set": {"activeWindowDOW": []}}, (8, 0)),  # until 8.3
]
ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    ("automerge", {"$set": {"anything": True}}),
    ("ReadWriteConcernDefaults", {"$set": {"anything": True}}),
    ("chunksize", {"$set": {"value": 3.5}}),  # a number: the refresh fails later, not the write
    ("chunksize", {"$set": {"value": 5}}),
    ("balancer", {"_id": "balancer", "mode": "full"}),
    ("balancer", {"_id": "balancer", "stopped": True}),
    (
        "balancer",
        {"_id": "balancer", "mode": "full", "activeWindow": {"start": "00.00", "stop": "06.00"}},
    ),
    ("balancer", {"_id": "balancer", "mode": "full", "_secondaryThrottle": True}),
    ("balancer", {"_id": "balancer", "mode": "full", "_secondaryThrottle": {"w": "majority"}}),
    ("balancer", {"_id": "balancer", "_waitForDelete": True, "attemptToBalanceJumboChunks": False}),
]
CASES = [("5.0", None), ("6.0", None), ("7.0", None), ("7.0", "6.0"), ("8.0", None),
         ("8.0", "7.0"), ("8.3", None), ("8.3", "8.0")]  # fmt: skip


def _fcv(version: str, fcv: str | None) -> tuple[int, int]:
    major, minor = (fcv or version).split(".")
    return int(major), int(minor)


def _settings(sandbox_server: Any, version: str, fcv: str | None) -> Any:
    return sandbox_server(sandbox=Sandbox(version, fcv=fcv)).client.config.settings


@pytest.mark.parametrize(("version", "fcv"), CASES)
def test_each_write_of_the_jstest_per_version_and_fcv(
    sandbox_server: Any, version: str, fcv: str | None
) -> None:
    coll = _settings(sandbox_server, version, fcv)
    at = _fcv(version, fcv)
    for _id, update, since in REJECTED:
        rejected = version >= "7.0" and at >= since
        if _id == "balancer" and "activeWindowDOW" in str(update) and at >= (8, 3):
            rejected = False  # 8.3 schema: activeWindowDOW {bsonType: array}
        if rejected:
            with pytest.raises(WriteError) as err:
                coll.update_one({"_id": _id}, update, upsert=True) if "$set" in update else (
                    coll.replace_one({"_id": _id}, update, upsert=True)
                )
            assert err.value.code == 121, (_id, update)
            assert err.value.details["errmsg"] == "Document failed validation"
        elif "$set" in update:
            coll.update_one({"_id": _id}, update, upsert=True)
        else:
            coll.replace_one({"_id": _id}, update, upsert=True)
    for _id, update in ACCEPTED:
        if "$set" in update:
            coll.update_one({"_id": _id}, update, upsert=True)
        else:
            coll.replace_one({"_id": _id}, update, upsert=True)
    assert coll.find_one({"_id": "balancer"}) is not None


def test_the_rejection_explains_the_failing_schema_rules(sandbox_server: Any) -> None:
    coll = _settings(sandbox_server, "8.0", None)
    with pytest.raises(WriteError) as err:
        coll.update_one({"_id": "balancer"}, {"$set": {"stoppppped": True}}, upsert=True)
    info = err.value.details["errInfo"]
    assert info["failingDocumentId"] == "balancer"
    assert info["details"]["operatorName"] == "$jsonSchema"
    (rule,) = info["details"]["schemaRulesNotSatisfied"]
    assert rule["operatorName"] == "oneOf"
    balancer_rules = rule["schemasNotSatisfied"][0]["details"]
    assert {"operatorName": "additionalProperties", "specifiedAs": {"additionalProperties": False},
            "additionalProperties": ["stoppppped"]} in balancer_rules  # fmt: skip
    assert coll.find_one({"_id": "balancer"}) is None  # nothing was written


def test_inserts_and_find_and_modify_are_validated_too(sandbox_server: Any) -> None:
    coll = _settings(sandbox_server, "7.0", None)
    with pytest.raises(WriteError) as err:
        coll.insert_one({"_id": "autosplit", "enabled": False})
    assert err.value.code == 121
    coll.insert_one({"_id": "chunksize", "value": 64})
    with pytest.raises(OperationFailure) as failure:  # a command error for findAndModify
        coll.find_one_and_update({"_id": "chunksize"}, {"$set": {"value": 0}})
    assert failure.value.code == 121
    assert coll.find_one({"_id": "chunksize"})["value"] == 64


@settings(max_examples=25, deadline=None)
@given(value=st.one_of(st.integers(-5000, 5000), st.floats(-10, 2000, allow_nan=False)))
def test_chunk_size_values_are_checked_by_range_only(
    module_sandbox_server: Any, value: Any
) -> None:
    coll = module_sandbox_server("7.0").client.config.settings
    if 1 <= value <= 1024:
        coll.update_one({"_id": "chunksize"}, {"$set": {"value": value}}, upsert=True)
        assert coll.find_one({"_id": "chunksize"})["value"] == value
    else:
        with pytest.raises(WriteError) as err:
            coll.update_one({"_id": "chunksize"}, {"$set": {"value": value}}, upsert=True)
        assert err.value.code == 121


def test_balancer_stop_fails_on_a_balancer_document_the_schema_refuses(
    sandbox_server: Any,
) -> None:
    handle = sandbox_server("8.0")
    # Written before the schema (a raw put): the next update must make it valid.
    handle.sandbox.cluster.coll("config.settings").put({"_id": "balancer", "legacy": 1})
    with pytest.raises(OperationFailure) as err:
        handle.client.admin.command("balancerStop")
    assert err.value.code == 121
    assert handle.client.config.settings.find_one({"_id": "balancer"}) == {
        "_id": "balancer",
        "legacy": 1,
    }
