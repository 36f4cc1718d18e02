"""rotate against a time-scaled sandbox (`zonectl sandbox --time-scale N`): its clock runs
ahead of this host's by design, and says so in buildInfo, so rotate runs on the sandbox's
clock (no skew refusal) and names it "the sandbox's clock", never "this host's clock". A
sandbox with a frozen clock still poses as a real cluster: test_rotate_time.py."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from typing import Any

import pytest
from rotate_kit import CLUSTER, Firehose, midnight, tap

from zonectl.sandbox.clock import Clock
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

SCALE = 60.0
FUTURE = dt.datetime(2030, 1, 2, tzinfo=dt.UTC)


@pytest.fixture
def scaled(sandbox_server: Callable[..., Any]) -> Firehose:
    """The firehose cluster on 8.0, served over TCP with a real clock x60, as `zonectl
    sandbox --time-scale 60` serves it; returned once its clock is 2 s ahead of this host's
    (a condition, reached ~35 ms after the clock started)."""
    sb = Sandbox("8.0", clock=Clock(scale=SCALE))
    seed.seed(sb, seed.load(CLUSTER), str(CLUSTER))
    handle = sandbox_server(sandbox=sb, client_options={"tz_aware": True})
    while sb.clock.now() - dt.datetime.now(dt.UTC) < dt.timedelta(seconds=2):
        time.sleep(0.01)
    fh = Firehose(sb, handle.uri, handle.client)
    tap(sb, fh.sent)
    return fh


def test_the_sandbox_reports_a_running_clock_in_build_info_and_a_frozen_one_not(
    scaled: Firehose, sandbox_server: Callable[..., Any]
) -> None:
    env = scaled.client.admin.command("buildInfo")["buildEnvironment"]
    assert env["distmod"] == "zonectl-sandbox"
    assert env["zonectlTimeScale"] == SCALE
    frozen = sandbox_server("8.0")  # virtual clock: what tests set to pose as a real one
    assert "zonectlTimeScale" not in frozen.client.admin.command("buildInfo")["buildEnvironment"]


def test_rotate_runs_on_the_time_scaled_clock_instead_of_refusing_the_skew(
    scaled: Firehose,
) -> None:
    # The sandbox's clock is seconds ahead (and counting): with a 1 s bound a real
    # cluster this far off would be refused (exit 5); the sandbox's timeline is the run's.
    before = scaled.sandbox.clock.now()
    r = scaled.rotate("--yes", "--max-clock-skew", "1s")
    after = scaled.sandbox.clock.now()
    assert r.code == 0, r.err
    assert "clocks differ" not in r.err
    assert "rotated 2 window(s)" in r.err
    assert scaled.hot_min() in {midnight(before), midnight(after)}  # the sandbox's day


def test_rotate_names_the_sandbox_clock_as_such(scaled: Firehose) -> None:
    ahead = scaled.rotate("--at", "2030-01-02T00:05:00Z", "--yes")
    assert ahead.code == 0, ahead.err
    assert scaled.hot_min() == FUTURE
    r = scaled.rotate("--yes")
    assert r.code == 5, r.err
    assert "refusing to move 2 firehose window(s) backwards; nothing was sent" in r.err
    assert "(the sandbox's clock)" in r.err
    assert "the cluster's; this host's is not used" in r.err
    assert "this host's clock" not in r.err
    assert scaled.hot_min() == FUTURE


def test_an_in_process_sandbox_clock_is_named_as_the_sandbox_s_too(tmp_path: Any) -> None:
    from rotate_kit import POLICY, zonectl

    uri = f"sandbox:{CLUSTER}?now=2026-03-04T10:00:00Z&state={tmp_path / 's.json'}"
    ahead = zonectl("rotate", str(POLICY), "--uri", uri, "--at", "2030-01-02T00:05:00Z", "--yes")
    assert ahead.code == 0, ahead.err
    r = zonectl("rotate", str(POLICY), "--uri", uri, "--yes")
    assert r.code == 5, r.err
    assert "at 2026-03-04T10:00:00Z (the sandbox's clock)" in r.err
    assert "this host's clock" not in r.err
