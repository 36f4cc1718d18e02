"""`zonectl doctor --probe`: the scratch round trip passes on every server version and leaves
no trace after success, after an injected failure, and after Ctrl-C; it refuses to start
while the balancer is in a round."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from typing import Any

import child_procs
from doctor_kit import demo_sandbox, snapshot, zonectl

EXPECTED = (
    "probe:shardCollection",
    "probe:addShardToZone",
    "probe:updateZoneKeyRange",
    "probe:re-add identical range",
    "probe:overlapping range",
    "probe:range of a missing zone",
    "probe:remove a zone still in use",
    "probe:pause balancing",
    "probe:restore balancing",
    "probe:remove range",
    "probe:removeShardFromZone",
    "probe:cleanup",
)


def fail_next(sb: Any, command: str, **data: Any) -> None:
    sb.client.admin.command(
        "configureFailPoint",
        "failCommand",
        mode={"times": 1},
        data={"failCommands": [command], "appName": "zonectl", **data},
    )


def test_the_probe_passes_and_leaves_no_trace(sandbox_server: Any, server_version: str) -> None:
    sb = sandbox_server(sandbox=demo_sandbox(server_version))
    before = snapshot(sb.client)
    result = zonectl("doctor", "--uri", sb.uri, "--probe")
    assert result.code == 0, result.out + result.err
    for name in EXPECTED:
        assert result.status(name) == "ok", result.out
    assert "RangeOverlapConflict (178)" in result.out
    assert "ZoneNotFound (177)" in result.out
    assert "ZoneStillInUse (163)" in result.out
    assert snapshot(sb.client) == before


def test_an_injected_failure_is_reported_and_cleaned_up(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox())
    before = snapshot(sb.client)
    fail_next(sb, "updateZoneKeyRange", errorCode=8)
    result = zonectl("doctor", "--uri", sb.uri, "--probe")
    assert result.code == 1
    line = result.line("probe:updateZoneKeyRange")
    assert line.startswith("fail") and "expected ok, got UnknownError" in line
    assert result.status("probe:cleanup") == "ok"
    assert "probe:overlapping range" not in result.out  # the probe stopped at the failure
    assert snapshot(sb.client) == before


def test_a_wrong_error_code_is_a_difference_from_what_zonectl_expects(
    sandbox_server: Any,
) -> None:
    sb = sandbox_server(sandbox=demo_sandbox())
    before = snapshot(sb.client)
    fail_next(sb, "removeShardFromZone", errorCode=20)  # IllegalOperation, not ZoneStillInUse
    result = zonectl("doctor", "--uri", sb.uri, "--probe")
    assert result.code == 1
    line = result.line("probe:remove a zone still in use")
    assert line.startswith("fail")
    assert "expected ZoneStillInUse, got IllegalOperation" in line
    assert snapshot(sb.client) == before


def test_ctrl_c_during_the_probe_cleans_up_and_exits_130(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox())
    before = snapshot(sb.client)
    # The range command blocks for 5 s (then fails): Ctrl-C lands while it waits.
    fail_next(sb, "updateZoneKeyRange", blockConnection=True, blockTimeMS=5_000, errorCode=8)
    proc = child_procs.popen(
        [sys.executable, "-m", "zonectl", "doctor", "--uri", sb.uri, "--probe"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    try:
        deadline = time.monotonic() + 60
        while not any(
            str(t).startswith("zonectl_probe_")
            for d in sb.client.config.shards.find({})
            for t in d.get("tags") or ()
        ):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        time.sleep(0.3)  # let it reach the blocked updateZoneKeyRange
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, out + err
    assert "interrupted" in err
    assert snapshot(sb.client) == before


def test_the_probe_refuses_while_the_balancer_is_in_a_round(sandbox_server: Any) -> None:
    sandbox = demo_sandbox()
    sandbox.clock.set(dt.datetime(2026, 3, 1, 2, 0, tzinfo=dt.UTC))  # moves stay in flight
    sb = sandbox_server(sandbox=sandbox)
    sandbox.balancer.run_round()
    assert sb.client.admin.command("balancerStatus")["inBalancerRound"] is True
    before = snapshot(sb.client)
    result = zonectl("doctor", "--uri", sb.uri, "--probe", "--wait-timeout", "0.5s")
    assert result.code == 1
    assert "--probe refused: the balancer is in a round" in result.line("probe")
    assert result.status("balancer") == "ok"  # the read-only report is still there
    assert snapshot(sb.client) == before


def _cost_line(uri: str) -> str:
    result = zonectl("plan", "policies/demo", "--uri", uri)
    return next(line for line in result.out.splitlines() if line.strip().startswith("cost:"))


def test_teach_rate_gives_the_forecast_migrations_to_learn_from_and_leaves_no_trace(
    sandbox_server: Any,
) -> None:
    sb = sandbox_server(sandbox=demo_sandbox("7.0"))
    assert "cost: assumed" in _cost_line(sb.uri)
    before = snapshot(sb.client)
    result = zonectl("doctor", "--uri", sb.uri, "--probe", "--teach-rate")
    assert result.code == 0, result.out + result.err
    assert result.status("probe:teach-rate") == "ok", result.out
    assert "migrated 6 scratch chunks (64 MiB)" in result.out
    commits = list(sb.client.config.changelog.find({"what": "moveChunk.commit"}))
    cloned = sorted(round(c["details"]["counts"]["clonedBytes"] / 1024**2) for c in commits)
    assert cloned == [2, 4, 8, 12, 16, 22]  # the scratch documents, counted in their chunks
    assert snapshot(sb.client) == before
    line = _cost_line(sb.uri)
    assert "learned from 6 migrations" in line, line
    # The sandbox's copy rate is 64 MiB/s unless its cluster file says otherwise.
    rate = float(line.split(" at ")[1].split(" MiB/s")[0])
    assert 48 <= rate <= 80, line


def test_teach_rate_needs_the_probe_and_two_shards(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox("7.0"))
    result = zonectl("doctor", "--uri", sb.uri, "--teach-rate")
    assert result.code == 2 and "--teach-rate needs --probe" in result.err
    one = sandbox_server("7.0")
    one.client.admin.command("addShard", "rs0/host0:27018", name="s0")
    result = zonectl("doctor", "--uri", one.uri, "--probe", "--teach-rate")
    assert result.status("probe:teach-rate") == "warn", result.out
    assert "nothing to migrate between" in result.out
