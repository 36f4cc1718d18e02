"""Safeguards through the CLI: the lease between concurrent runs, idempotency, prior
balancing states kept, restore failures, signals, the wait for in-flight migrations."""

from __future__ import annotations

import datetime as dt
import json
import signal
import time

import pytest
from apply_kit import FIXTURES, MATRIX, Cluster, spawn, zonectl

EVENTS_ONLY = FIXTURES / "events-only"
CLUSTER_COMMANDS = {
    "addShardToZone",
    "removeShardFromZone",
    "updateZoneKeyRange",
    "balancerStart",
    "balancerStop",
    "moveChunk",
    "moveRange",
    "split",
    "mergeChunks",
}


def state_changes(seen: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Commands that change the cluster's metadata (zonectl's own database excluded)."""
    writes = {"insert", "update", "delete", "findAndModify"}
    return [
        (name, ns)
        for name, ns in seen
        if name in CLUSTER_COMMANDS or (name in writes and ns.startswith("config."))
    ]


def test_a_second_apply_sends_no_state_changing_command(cluster: Cluster) -> None:
    assert zonectl("apply", str(MATRIX), "--uri", cluster.uri, "--yes").code == 0
    cluster.tap.seen.clear()
    again = zonectl("apply", str(MATRIX), "--uri", cluster.uri, "--yes", "-v")
    assert again.code == 0, again.err
    assert "No changes" in again.err
    assert state_changes(cluster.tap.seen) == []


def test_apply_sends_exactly_the_planned_commands_plus_the_pause(cluster: Cluster) -> None:
    planned = json.loads(zonectl("plan", str(MATRIX), "--uri", cluster.uri, "-f", "json").out)
    cluster.tap.seen.clear()
    result = zonectl("apply", str(MATRIX), "--uri", cluster.uri, "--yes")
    assert result.code == 0, result.err
    sent = state_changes(cluster.tap.seen)
    pauses = [s for s in sent if s == ("update", "config.collections")]
    # app.events paused and restored; app.logs already had noBalance (kept, untouched);
    # the third update is the planned `balancing: false` of app.users.
    assert len(pauses) == 3
    expected = [(next(iter(op["command"])), op.get("namespace")) for op in planned["ops"]]
    assert len(sent) - 2 == len(expected) == 11
    assert cluster.state()["noBalance"] == {
        "app.events": False,
        "app.logs": True,
        "app.users": True,
    }


def test_two_concurrent_applies_one_proceeds_the_other_exits_1_naming_the_holder(
    cluster: Cluster,
) -> None:
    # The first run waits 2 s inside its first range command, holding the lease.
    cluster.tap.arm("updateZoneKeyRange", "app.events", 1, blockConnection=True, blockTimeMS=2000)
    first = spawn("apply", str(MATRIX), "--uri", cluster.uri, "--yes")
    assert cluster.tap.fired.wait(60)
    second = zonectl("apply", str(MATRIX), "--uri", cluster.uri, "--yes")
    _out, err = first.communicate(timeout=120)
    assert second.code == 1
    assert "lease held by" in second.err and f"pid {first.pid}" in second.err
    assert "zonectl recover --break-lease" in second.err
    assert first.returncode == 0, err
    assert zonectl("plan", str(MATRIX), "--uri", cluster.uri, "--detailed-exitcode").code == 0


def test_an_expired_lease_is_taken_over(cluster: Cluster) -> None:
    past = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    cluster.client.zonectl.locks.insert_one(
        {
            "_id": "apply",
            "owner": "cron@ops-3",
            "host": "ops-3",
            "pid": 1,
            "token": "t",
            "operation": "apply",
            "acquired": past,
            "expires": past,
        }
    )
    assert zonectl("apply", str(EVENTS_ONLY), "--uri", cluster.uri, "--yes").code == 0
    assert cluster.lease() is None


def test_a_live_lease_on_another_host_needs_break_lease(cluster: Cluster) -> None:
    soon = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=10)
    cluster.client.zonectl.locks.insert_one(
        {
            "_id": "apply",
            "owner": "cron@ops-3",
            "host": "ops-3",
            "pid": 1,
            "token": "t",
            "operation": "apply",
            "plan_id": "3f2a",
            "acquired": soon,
            "expires": soon,
        }
    )
    refused = zonectl("recover", "--uri", cluster.uri)
    assert refused.code == 1 and "lease held by cron@ops-3" in refused.err
    assert "plan 3f2a" in refused.err
    broken = zonectl("recover", "--uri", cluster.uri, "--break-lease")
    assert broken.code == 0, broken.err
    assert cluster.lease() is None


def test_a_stopped_balancer_stays_stopped_with_pause_cluster(cluster: Cluster) -> None:
    cluster.client.admin.command("balancerStop")
    cluster.tap.seen.clear()
    result = zonectl("apply", str(EVENTS_ONLY), "--uri", cluster.uri, "--yes", "--pause", "cluster")
    assert result.code == 0, result.err
    assert ("balancerStart", "1") not in cluster.tap.seen
    assert ("balancerStop", "1") not in cluster.tap.seen
    settings = cluster.client.config.settings.find_one({"_id": "balancer"})
    assert settings["stopped"] is True and settings["mode"] == "off"


def test_pause_cluster_stops_and_restarts_a_running_balancer(cluster: Cluster) -> None:
    result = zonectl("apply", str(EVENTS_ONLY), "--uri", cluster.uri, "--yes", "--pause", "cluster")
    assert result.code == 0, result.err
    names = [name for name, _ in cluster.tap.seen]
    assert names.index("balancerStop") < names.index("updateZoneKeyRange")
    assert names.index("balancerStart") > len(names) - 1 - names[::-1].index("updateZoneKeyRange")
    assert cluster.client.admin.command("balancerStatus")["mode"] == "full"
    assert ("update", "config.collections") not in cluster.tap.seen


def test_restore_failure_exits_5_with_the_command_to_run_then_recover_restores(
    cluster: Cluster,
) -> None:
    # The pause succeeds; every later update of config.collections fails.
    cluster.tap.arm("update", "config.collections", 2, mode="alwaysOn", errorCode=8)
    result = zonectl("apply", str(EVENTS_ONLY), "--uri", cluster.uri, "--yes")
    assert result.code == 5, result.err
    assert "could not restore balancing of app.events" in result.err
    assert '.collections.updateOne({_id: "app.events"}, {$set: {noBalance: false}}' in result.err
    assert cluster.lease() is None
    assert len(cluster.open_journals()) == 1
    cluster.client.admin.command("configureFailPoint", "failCommand", mode="off")
    recovered = zonectl("recover", "--uri", cluster.uri)
    assert recovered.code == 0, recovered.err
    assert "restored noBalance: False on app.events" in recovered.err
    assert cluster.state()["noBalance"]["app.events"] is False
    assert cluster.open_journals() == []


def test_sigterm_unwinds_through_the_restore(cluster: Cluster) -> None:
    cluster.tap.arm("updateZoneKeyRange", "app.events", 2, blockConnection=True, blockTimeMS=1500)
    proc = spawn("apply", str(EVENTS_ONLY), "--uri", cluster.uri, "--yes")
    assert cluster.tap.fired.wait(60)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert cluster.state()["noBalance"]["app.events"] is False
    assert cluster.lease() is None
    assert cluster.open_journals() == []


def _strand_a_migration(cluster: Cluster) -> None:
    """A balancer migration of app.events that stays in flight: the sandbox clock is frozen,
    so its simulated copy never finishes."""
    sb = cluster.sandbox
    cluster.client.admin.command(
        "moveChunk", "app.events", bounds=[{"x": 100}, {"x": 200}], to="s-fast-0"
    )
    sb.clock.set(dt.datetime.now(dt.UTC))
    round_ = sb.balancer.run_round()
    assert round_.migrations, "the balancer should start moving [100, 200) back"


def test_wait_timeout_restores_balancing_and_changes_nothing(cluster: Cluster) -> None:
    _strand_a_migration(cluster)
    before = cluster.state()
    started = time.monotonic()
    result = zonectl(
        "apply", str(EVENTS_ONLY), "--uri", cluster.uri, "--yes", "--wait-timeout", "1s"
    )
    assert result.code == 1
    assert "still migrating chunks of app.events after 1s" in result.err
    assert time.monotonic() - started < 30
    assert cluster.state() == before
    assert cluster.lease() is None


def test_a_command_error_names_the_op_namespace_and_server_error(cluster: Cluster) -> None:
    cluster.tap.arm("updateZoneKeyRange", "app.events", 3, errorCode=178)
    result = zonectl("apply", str(EVENTS_ONLY), "--uri", cluster.uri, "--yes")
    assert result.code == 1
    assert "updateZoneKeyRange of app.events failed" in result.err
    assert "RangeOverlapConflict (178)" in result.err
    assert "assign [{ x: MinKey }, { x: 1500 }) of app.events to zone archive" in result.err
    assert cluster.state()["noBalance"]["app.events"] is False


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_an_interrupt_while_balancer_stop_waits_leaves_the_auto_merger_on(
    cluster: Cluster, sig: signal.Signals
) -> None:
    """balancerStop writes automerge.enabled: false, then waits for the round in flight
    (7.0+, balancer-settings §3.1). A Ctrl-C in that wait restarted the balancer and wrote
    back the `false` it read then as the prior value: the auto-merger stayed off. The prior
    value is read before the pause and kept in the journal, which `recover` reads after a
    kill -9."""
    settings = cluster.client.config.settings
    assert (settings.find_one({"_id": "automerge"}) or {}).get("enabled", True) is True
    _strand_a_migration(cluster)  # balancerStop waits for this round
    proc = spawn("apply", str(EVENTS_ONLY), "--uri", cluster.uri, "--yes", "--pause", "cluster")
    deadline = time.monotonic() + 60
    while not any(name == "balancerStop" for name, _ in cluster.tap.seen):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    while (settings.find_one({"_id": "automerge"}) or {}).get("enabled", True):
        assert time.monotonic() < deadline, "balancerStop never wrote automerge"
        time.sleep(0.02)
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=60)
    if sig == signal.SIGKILL:
        recovered = zonectl("recover", "--uri", cluster.uri, "--break-lease")
        assert recovered.code == 0, recovered.err
        assert "restarted the balancer it had stopped" in recovered.err
    else:
        assert proc.returncode == 130, err
    assert cluster.client.admin.command("balancerStatus")["mode"] == "full"
    assert settings.find_one({"_id": "automerge"})["enabled"] is True
    assert cluster.open_journals() == []
