"""balancerStart / balancerStop / balancerStatus over real pymongo (reference §3.1, §3.2)."""

from __future__ import annotations

import datetime as dt
import threading
import time
from typing import Any

import pytest
from pymongo.errors import ExecutionTimeout, OperationFailure

VERSIONS = ("5.0", "6.0", "7.0", "8.0")


@pytest.mark.parametrize("version", VERSIONS)
def test_stop_and_start_write_the_balancer_document(make_cluster: Any, version: str) -> None:
    c = make_cluster(version)
    c.admin.command("balancerStop")
    doc = c.client.config.settings.find_one({"_id": "balancer"})
    assert doc["stopped"] is True and doc["mode"] == "off"
    c.admin.command("balancerStart")
    doc = c.client.config.settings.find_one({"_id": "balancer"})
    assert doc["stopped"] is False and doc["mode"] == "full"


@pytest.mark.parametrize(("version", "toggles"), [("5.0", False), ("6.0", False), ("7.0", True)])
def test_automerge_document_follows_the_balancer_from_7_0(
    make_cluster: Any, version: str, toggles: bool
) -> None:
    c = make_cluster(version)
    c.admin.command("balancerStop")
    doc = c.client.config.settings.find_one({"_id": "automerge"})
    assert (doc == {"_id": "automerge", "enabled": False}) if toggles else doc is None
    c.admin.command("balancerStart")
    doc = c.client.config.settings.find_one({"_id": "automerge"})
    assert (doc == {"_id": "automerge", "enabled": True}) if toggles else doc is None


@pytest.mark.parametrize("version", VERSIONS)
def test_status_reports_mode_round_and_term_from_7_0(make_cluster: Any, version: str) -> None:
    c = make_cluster(version)
    status = c.admin.command("balancerStatus")
    assert status["mode"] == "full"
    assert status["inBalancerRound"] is False
    assert status["numBalancerRounds"] == 0
    assert ("term" in status) == (version in ("7.0", "8.0"))
    c.admin.command("balancerStop")
    assert c.admin.command("balancerStatus")["mode"] == "off"


def test_round_counter_grows_on_rounds_skipped_because_the_balancer_is_off(
    make_cluster: Any,
) -> None:
    c = make_cluster(points=[10, 20])
    c.admin.command("balancerStop")
    c.balancer.run_round()
    c.balancer.run_round()
    assert c.admin.command("balancerStatus")["numBalancerRounds"] == 2
    assert c.counts() == {"shard0": 3, "shard1": 0, "shard2": 0}


def test_malformed_active_window_fails_start_with_bad_value_after_the_write(
    make_cluster: Any,
) -> None:
    c = make_cluster()
    c.set_setting(
        "balancer", mode="off", stopped=True, activeWindow={"start": "25:00", "stop": "1"}
    )
    with pytest.raises(OperationFailure) as err:
        c.admin.command("balancerStart")
    assert err.value.code == 2
    assert "activeWindow format is" in str(err.value.details["errmsg"])
    doc = c.client.config.settings.find_one({"_id": "balancer"})
    assert doc["mode"] == "full" and doc["stopped"] is False


def test_malformed_active_window_makes_rounds_skip(make_cluster: Any) -> None:
    c = make_cluster(points=[10, 20])
    c.set_setting("balancer", activeWindow={"start": "10:00"})
    result = c.balancer.run_round()
    assert "must specify both start and stop of balancing window" in result.skipped
    assert c.counts()["shard0"] == 3


def test_equal_window_ends_are_bad_value_on_stop(make_cluster: Any) -> None:
    c = make_cluster()
    window = {"start": "10:00", "stop": "10:00"}
    c.set_setting("balancer", activeWindow=window)
    with pytest.raises(OperationFailure) as err:
        c.admin.command("balancerStop")
    assert err.value.code == 2
    assert "start and stop times must be different" in str(err.value.details["errmsg"])
    assert c.client.config.settings.find_one({"_id": "balancer"})["mode"] == "off"


def test_active_window_is_respected_against_the_sandbox_clock(make_cluster: Any) -> None:
    c = make_cluster(points=[10, 20, 30, 40], chunk_mb=1)
    c.set_setting("balancer", activeWindow={"start": "23:00", "stop": "06:00"})
    assert c.balancer.run_round().skipped == "window"  # the clock says 12:00 UTC
    assert c.counts()["shard0"] == 5
    c.sandbox.clock.advance(dt.timedelta(hours=12))  # 00:00, inside
    assert c.balancer.run_round().migrations
    c.balancer.complete_migrations()
    assert c.counts()["shard0"] < 5


def test_stop_while_a_round_runs_times_out_with_off_already_stored(make_cluster: Any) -> None:
    c = make_cluster("5.0", points=[10, 20, 30])
    assert c.balancer.run_round().migrations  # migrations in flight, round open
    assert c.admin.command("balancerStatus")["inBalancerRound"] is True
    with pytest.raises(ExecutionTimeout) as err:
        c.admin.command("balancerStop", maxTimeMS=100)
    assert err.value.code == 50
    assert c.client.config.settings.find_one({"_id": "balancer"})["mode"] == "off"
    assert c.admin.command("balancerStatus")["inBalancerRound"] is True


def test_stop_while_a_round_runs_waits_for_its_migrations(make_cluster: Any) -> None:
    c = make_cluster("5.0", points=[10, 20, 30])
    c.balancer.run_round()
    outcome: dict[str, Any] = {}

    def stop() -> None:
        outcome["reply"] = c.admin.command("balancerStop")

    thread = threading.Thread(target=stop, daemon=True)
    # Held: no quiet waiter (the stop's, or this test's) jumps the clock to the round's
    # commits while the test is still looking, so only complete_migrations() ends them.
    with c.sandbox.clock.held():
        thread.start()
        # The stop is parked in joinCurrentRound until the migrations finish.
        # The handler holds the sandbox lock from its write until it waits, so once "off"
        # is visible here the stop is already waiting.
        off = c.balancer.wait_for(
            lambda: (c.sandbox.cluster.setting("balancer") or {}).get("mode") == "off",
            time.monotonic() + 30,
        )
        assert off and thread.is_alive()
        moved_before = sum(v for k, v in c.counts().items() if k != "shard0")
        c.balancer.complete_migrations()
    thread.join(timeout=30)
    assert outcome["reply"]["ok"] == 1.0
    assert sum(v for k, v in c.counts().items() if k != "shard0") > moved_before
    assert c.admin.command("balancerStatus")["inBalancerRound"] is False


def test_advancing_the_clock_completes_migrations_and_releases_a_waiting_stop(
    make_cluster: Any,
) -> None:
    c = make_cluster("5.0", points=[10, 20, 30])
    c.balancer.run_round()
    c.sandbox.clock.advance(dt.timedelta(minutes=5))
    c.admin.command("balancerStop", maxTimeMS=30000)
    assert c.admin.command("balancerStatus")["inBalancerRound"] is False


@pytest.mark.parametrize("name", ["balancerStart", "balancerStop", "balancerStatus"])
def test_balancer_commands_are_admin_only_and_refuse_write_concern(
    make_cluster: Any, name: str
) -> None:
    c = make_cluster()
    with pytest.raises(OperationFailure) as err:
        c.client.db.command(name)
    assert err.value.code == 13
    with pytest.raises(OperationFailure) as err:
        c.admin.command(name, writeConcern={"w": 1})
    assert err.value.code == 72


@pytest.mark.parametrize(("version", "fails"), [("5.0", True), ("6.0", True), ("7.0", False)])
def test_an_unknown_mode_is_bad_value_before_7_0_and_off_from_7_0(
    make_cluster: Any, version: str, fails: bool
) -> None:
    c = make_cluster(version, points=[10, 20])
    c.set_setting("balancer", mode="sometimes", stopped=False)
    result = c.balancer.run_round()
    if fails:
        assert result.skipped.endswith("Invalid balancer mode")
    else:
        assert result.skipped == "off"
    assert c.admin.command("balancerStatus")["numBalancerRounds"] == 1


def test_status_ignores_a_settings_refresh_error(make_cluster: Any) -> None:
    c = make_cluster()
    c.set_setting("balancer", activeWindow={"start": "bad", "stop": "worse"})
    assert c.admin.command("balancerStatus")["mode"] == "full"


def test_round_actionlog_entries_for_start_and_stop_from_7_0(make_cluster: Any) -> None:
    c = make_cluster("7.0")
    c.admin.command("balancerStop")
    c.admin.command("balancerStart")
    whats = [e["what"] for e in c.client.config.actionlog.find({}).sort("time", 1)]
    assert whats[-2:] == ["balancer.stop", "balancer.start"]


def test_the_timer_runs_rounds_and_stops(make_cluster: Any) -> None:
    c = make_cluster("5.0", points=[10, 20])
    c.sandbox.clock.set(None)  # real time, as `zonectl sandbox` runs
    c.balancer.start(0.01)
    try:
        # A bounded wait for progress, not a timing assertion.
        assert c.balancer.wait_for(lambda: c.balancer.num_rounds >= 3, time.monotonic() + 60)
    finally:
        c.balancer.stop()
    rounds = c.balancer.num_rounds
    assert c.admin.command("balancerStatus")["numBalancerRounds"] == rounds
