"""The balancer document as rounds read it, written through pymongo: day-of-week windows
(8.3, balancer-settings.md §1.4), `_secondaryThrottle` and `_waitForDelete` (§1.2).

Cases after the C++ unit tests in src/mongo/s/balancer_configuration_test.cpp
(BalancingWindowDOWSingleDay, ...OvernightWindow, ActiveWindowAndActiveWindowDOWPrecedence,
BalancingWindowDOWDisabled_*).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pymongo.errors import OperationFailure, WriteError

from zonectl.sandbox.state import Sandbox

MONDAY_NOON = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)  # a Monday


def _set(c: Any, **fields: Any) -> None:
    c.client.config.settings.update_one({"_id": "balancer"}, {"$set": fields}, upsert=True)


def _skipped(c: Any, at: dt.datetime) -> str | None:
    c.sandbox.clock.set(at)
    return c.balancer.run_round().skipped  # type: ignore[no-any-return]


def test_dow_windows_replace_the_active_window_on_8_3(make_cluster: Any) -> None:
    c = make_cluster("8.3", points=[10, 20])
    _set(c, activeWindow={"start": "00:00", "stop": "23:59"},
         activeWindowDOW=[{"day": "Monday", "start": "9:00", "stop": "17:00"},
                          {"day": "Friday", "start": "22:00", "stop": "06:00"}])  # fmt: skip
    assert _skipped(c, MONDAY_NOON) is None
    assert _skipped(c, MONDAY_NOON + dt.timedelta(hours=6)) == "window"  # Monday 18:00
    assert _skipped(c, MONDAY_NOON + dt.timedelta(days=1)) == "window"  # no Tuesday entry
    friday = MONDAY_NOON + dt.timedelta(days=4)
    assert _skipped(c, friday.replace(hour=23)) is None
    assert _skipped(c, friday.replace(hour=3)) is None  # the same day's early end
    assert _skipped(c, friday + dt.timedelta(days=1, hours=-9)) == "window"  # Saturday 03:00


def test_an_empty_dow_list_falls_back_to_the_active_window(make_cluster: Any) -> None:
    c = make_cluster("8.3")
    _set(c, activeWindow={"start": "13:00", "stop": "14:00"}, activeWindowDOW=[])
    assert _skipped(c, MONDAY_NOON) == "window"
    assert _skipped(c, MONDAY_NOON.replace(hour=13, minute=30)) is None


def test_below_fcv_8_3_the_dow_windows_are_ignored_and_cannot_be_written(
    sandbox_server: Any,
) -> None:
    handle = sandbox_server(sandbox=Sandbox("8.3", fcv="8.0"))
    with pytest.raises(WriteError) as err:  # the 8.0 schema has no activeWindowDOW
        handle.client.config.settings.update_one(
            {"_id": "balancer"}, {"$set": {"activeWindowDOW": []}}, upsert=True
        )
    assert err.value.code == 121
    # Written before the FCV went down (no validator on a raw put): ignored by the rounds.
    handle.sandbox.cluster.coll("config.settings").put(
        {"_id": "balancer", "activeWindowDOW": [{"day": "Sunday", "start": "1:00", "stop": "2:00"}]}
    )
    handle.sandbox.clock.set(MONDAY_NOON)
    assert handle.sandbox.balancer.run_round().skipped is None


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([{"day": "Funday", "start": "1:00", "stop": "2:00"}], "invalid day of week: Funday"),
        ([{"day": "monday", "start": "1:00", "stop": "2:00"}], "invalid day of week: monday"),
        ([{"day": "Monday", "start": "1:00", "stop": "1:00"}], "must be different"),
        ([{"day": "Monday", "start": "25:00", "stop": "2:00"}], 'must be "hh:mm"'),
        ([{"day": "Monday", "start": "1:00"}], "must specify both start and stop"),
    ],
)
def test_a_bad_dow_entry_is_written_but_stops_every_round(
    make_cluster: Any, entries: list[dict[str, Any]], message: str
) -> None:
    c = make_cluster("8.3")
    _set(c, activeWindowDOW=entries)  # the schema checks only that it is an array
    skipped = _skipped(c, MONDAY_NOON)
    assert skipped is not None and message in skipped
    assert "Failed to refresh the balancer settings" in skipped


@pytest.mark.parametrize("version", ["5.0", "6.0", "7.0"])
def test_before_8_0_the_dow_field_is_stored_and_ignored(make_cluster: Any, version: str) -> None:
    c = make_cluster(version, points=[10])
    _set(c, activeWindowDOW=[{"day": "Sunday", "start": "1:00", "stop": "2:00"}])
    assert _skipped(c, MONDAY_NOON) is None


@pytest.mark.parametrize(("version", "value"), [("7.0", "yes"), ("7.0", 1), ("5.0", "yes")])
def test_a_secondary_throttle_of_the_wrong_type_breaks_the_refresh(
    make_cluster: Any, version: str, value: Any
) -> None:
    c = make_cluster(version)
    _set(c, _secondaryThrottle=value)  # no schema on the balancer document before FCV 8.0
    skipped = _skipped(c, MONDAY_NOON)
    assert skipped is not None and '"_secondaryThrottle" had the wrong type' in skipped


def test_secondary_throttle_and_wait_for_delete_are_read_by_the_round(make_cluster: Any) -> None:
    c = make_cluster("8.0", points=[10, 20])
    _set(c, _secondaryThrottle={"w": "majority", "wtimeout": 60000}, _waitForDelete=True)
    assert _skipped(c, MONDAY_NOON) is None
    settings = c.balancer.settings
    assert settings.secondary_throttle == {"w": "majority", "wtimeout": 60000}
    assert settings.wait_for_delete is True


def _migration_length(make_cluster: Any, **balancer: Any) -> dt.timedelta:
    c = make_cluster("7.0", shards=2, points=[10, 20, 30, 40], chunk_mb=64, chunksize_mb=64)
    if balancer:
        _set(c, **balancer)
    c.sandbox.clock.set(MONDAY_NOON)
    (flight, *_) = c.balancer.run_round().migrations
    return flight.due - flight.started  # type: ignore[no-any-return]


def test_a_secondary_throttle_makes_each_migration_wait_for_replication(
    make_cluster: Any,
) -> None:
    plain = _migration_length(make_cluster)
    assert _migration_length(make_cluster, _secondaryThrottle=False) == plain
    assert _migration_length(make_cluster, _secondaryThrottle=True) > plain
    assert _migration_length(make_cluster, _secondaryThrottle={"w": 2}) > plain


def test_an_8_3_mongos_has_no_fcv_parameter(sandbox_server: Any) -> None:
    client = sandbox_server("8.3").client
    with pytest.raises(OperationFailure) as err:
        client.admin.command("getParameter", 1, featureCompatibilityVersion=1)
    assert err.value.code == 72
    fcv = client.admin["system.version"].find_one({"_id": "featureCompatibilityVersion"})
    assert fcv == {"_id": "featureCompatibilityVersion", "version": "8.3"}
    old = sandbox_server("8.0").client.admin.command(
        "getParameter", 1, featureCompatibilityVersion=1
    )
    assert old["featureCompatibilityVersion"] == {"version": "8.0"}


@pytest.mark.parametrize("version", ["5.0", "6.0"])
def test_config_migrations_carries_the_balancer_documents_fields(
    make_cluster: Any, version: str
) -> None:
    c = make_cluster(version, points=[10, 20, 30, 40, 50, 60], chunk_mb=1)
    _set(c, _waitForDelete=True, _secondaryThrottle={"w": "majority"})
    c.sandbox.clock.set(MONDAY_NOON)
    assert c.balancer.run_round().migrations
    doc = c.client.config.migrations.find_one()
    assert doc["waitForDelete"] is True
    if version == "6.0":
        assert doc["secondaryThrottle"] is True
        assert doc["writeConcern"] == {"w": "majority"}
        assert doc["maxChunkSizeBytes"] == 1024 * 1024
    else:
        assert "secondaryThrottle" not in doc
    ops = c.client.admin.aggregate([{"$currentOp": {"allUsers": True}}])
    commands = [op["command"] for op in ops if op.get("op") == "command"]
    assert commands and all(cmd["waitForDelete"] is True for cmd in commands)
