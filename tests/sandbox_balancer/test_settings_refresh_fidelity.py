"""A config.settings document the validator lets through but the balancer's settings refresh
cannot parse, over real pymongo (docs/sandbox-fidelity.md, "Settings refresh"):

- `chunksize: 3.5` passes the 7.0+ validator (a number in [1, 1024]) and then fails every
  refresh with BadValue (jstests/sharding/config_settings_schema.js: "the balancer will fail
  until a correct value is set"); `_waitForDelete: "yes"` (6.0/7.0: no balancer schema) fails
  it with TypeMismatch. While it does, balancerCollectionStatus, moveChunk and moveRange
  fail with the refresh error (getMaxChunkSizeBytes in balancer.cpp), balancer rounds do
  nothing, and balancerStatus answers from the last good settings (report ignores the
  error); a valid value makes every one of them work again.
- collMod of config.settings' validator, validationLevel or validationAction is
  InvalidOptions (72) on a 7.0+ mongos (cluster_collection_mod_cmd.cpp; the same jstest).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from bson import MinKey
from pymongo import MongoClient
from pymongo.errors import OperationFailure, WriteError
from sandbox_at import served_at

from zonectl.sandbox.uri import SandboxHandle

NOW = "2026-03-02T10:00:00Z"
CHUNKSIZE_ERROR = (
    'Failed to refresh the chunk sizes settings :: caused by :: Expected field "value" to '
    "have a value exactly representable as a 64-bit integer, but found value: 3.5"
)
WAIT_ERROR = (
    "Failed to refresh the balancer settings :: caused by :: Expected boolean or number type "
    'for field "_waitForDelete", found string'
)


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[tuple[SandboxHandle, MongoClient[Any]]]:
    with served_at(request.param, NOW) as both:
        yield both


def _fails(call: Any, code: int, message: str) -> None:
    with pytest.raises(OperationFailure) as info:
        call()
    assert info.value.code == code, info.value.details
    assert (info.value.details or {}).get("errmsg") == message


def _move_range(client: MongoClient[Any]) -> Any:
    """Move app.audit's first chunk to another shard (6.0+ manual moves ignore zones)."""
    coll = client.config.collections.find_one({"_id": "app.audit"})
    assert coll is not None
    chunk = client.config.chunks.find_one({"uuid": coll["uuid"], "min": {"_id": MinKey()}})
    assert chunk is not None
    to = "shard-fast-1" if chunk["shard"] != "shard-fast-1" else "shard-std-3"
    return client.admin.command("moveRange", "app.audit", min=chunk["min"], toShard=to)


@pytest.mark.parametrize("served", ["7.0", "8.0"], indirect=True)
def test_chunksize_3_5_is_written_then_fails_status_and_moves_until_fixed(
    served: tuple[SandboxHandle, MongoClient[Any]],
) -> None:
    handle, client = served
    settings = client.config.settings
    before = client.admin.command("balancerCollectionStatus", "app.events")
    settings.update_one({"_id": "chunksize"}, {"$set": {"value": 3.5}}, upsert=True)
    status = lambda: client.admin.command("balancerCollectionStatus", "app.events")  # noqa: E731
    _fails(status, 2, CHUNKSIZE_ERROR)
    _fails(lambda: _move_range(client), 2, CHUNKSIZE_ERROR)
    assert client.admin.command("balancerStatus")["mode"] == "full"  # the cached settings
    rounds = handle.sandbox.balancer.run_round()
    assert rounds.skipped == CHUNKSIZE_ERROR and not rounds.migrations
    settings.update_one({"_id": "chunksize"}, {"$set": {"value": 256}})
    assert status()["chunkSize"] == 256 and before["chunkSize"] == 128
    _move_range(client)


@pytest.mark.parametrize("served", ["6.0", "7.0"], indirect=True)
def test_wait_for_delete_yes_breaks_the_settings_refresh_with_type_mismatch(
    served: tuple[SandboxHandle, MongoClient[Any]],
) -> None:
    handle, client = served
    settings = client.config.settings
    settings.update_one({"_id": "balancer"}, {"$set": {"_waitForDelete": "yes"}}, upsert=True)
    status = lambda: client.admin.command("balancerCollectionStatus", "app.events")  # noqa: E731
    _fails(status, 14, WAIT_ERROR)
    _fails(lambda: _move_range(client), 14, WAIT_ERROR)
    _fails(lambda: client.admin.command("balancerStart"), 14, WAIT_ERROR)  # written, then refused
    assert client.admin.command("balancerStatus")["mode"] == "full"
    assert handle.sandbox.balancer.run_round().skipped == WAIT_ERROR
    settings.update_one({"_id": "balancer"}, {"$set": {"_waitForDelete": True}})
    assert status()["balancerCompliant"] in (True, False)
    _move_range(client)


@pytest.mark.parametrize("served", ["8.0"], indirect=True)
def test_wait_for_delete_yes_is_refused_by_the_8_0_balancer_schema(
    served: tuple[SandboxHandle, MongoClient[Any]],
) -> None:
    _, client = served
    with pytest.raises(WriteError) as info:
        client.config.settings.update_one(
            {"_id": "balancer"}, {"$set": {"_waitForDelete": "yes"}}, upsert=True
        )
    assert info.value.code == 121
    assert client.admin.command("balancerCollectionStatus", "app.events")["ok"] == 1


@pytest.mark.parametrize("served", ["7.0", "8.0", "8.3"], indirect=True)
@pytest.mark.parametrize(
    "change", [{"validator": {}}, {"validationLevel": "off"}, {"validationAction": "warn"}]
)
def test_coll_mod_of_the_settings_validator_is_invalid_options(
    served: tuple[SandboxHandle, MongoClient[Any]], change: dict[str, Any]
) -> None:
    _, client = served
    _fails(
        lambda: client.config.command("collMod", "settings", **change),
        72,
        "Document validators not allowed on system collection config.settings",
    )
    # The validator still holds: a chunk size above 1024 is refused.
    with pytest.raises(WriteError) as info:
        client.config.settings.update_one(
            {"_id": "chunksize"}, {"$set": {"value": 5000}}, upsert=True
        )
    assert info.value.code == 121


@pytest.mark.parametrize("served", ["7.0"], indirect=True)
def test_coll_mod_of_anything_else_says_the_sandbox_does_not_simulate_it(
    served: tuple[SandboxHandle, MongoClient[Any]],
) -> None:
    _, client = served
    with pytest.raises(OperationFailure) as info:
        client.app.command("collMod", "events", validationLevel="off")
    assert info.value.code == 238  # NotImplemented, never a pretended success
    assert "not simulated by the zonectl sandbox" in str(info.value)
