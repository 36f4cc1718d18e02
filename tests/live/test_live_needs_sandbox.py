"""Live-kit cases that need what only the in-process sandbox offers: a fail point armed on
the mongos, a cluster clock the test sets. Against $ZONECTL_TEST_URI they skip, saying so."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from live_kit import Scratch, ranges_policy

pytestmark = pytest.mark.live


def test_a_failed_range_command_leaves_balancing_restored_and_no_lease(
    scratch: Scratch, tmp_path: Path
) -> None:
    scratch.target.needs_sandbox("a failCommand fail point")
    policy = ranges_policy(scratch, tmp_path)
    scratch.target.client.admin.command(
        "configureFailPoint",
        "failCommand",
        mode={"times": 1},
        data={"failCommands": ["updateZoneKeyRange"], "errorCode": 8, "appName": "zonectl"},
    )
    failed = scratch.zonectl("apply", str(policy), "-n", scratch.ns(), "--yes")
    assert failed.code == 1, failed.err
    assert scratch.no_balance() is False
    assert scratch.target.client[scratch.meta].locks.find_one({"_id": "apply"}) is None
    retried = scratch.zonectl("apply", str(policy), "-n", scratch.ns(), "--yes")
    assert retried.code == 0, retried.err
    assert len(scratch.ranges()) == 2


def test_doctor_fails_on_a_cluster_clock_ten_minutes_ahead(scratch: Scratch) -> None:
    sandbox = scratch.target.needs_sandbox("a settable cluster clock")
    sandbox.clock.set(dt.datetime.now(dt.UTC) + dt.timedelta(minutes=10))
    try:
        doctor = scratch.zonectl("doctor")
    finally:
        sandbox.clock.set(None)
    assert doctor.code == 1
    assert any(
        line.startswith("fail") and "clock" in line and "ahead of" in line
        for line in doctor.out.splitlines()
    ), doctor.out
