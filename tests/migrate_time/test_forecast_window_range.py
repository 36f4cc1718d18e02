"""The balancer route's finish near a window close (issue 31): with some chunk sizes
estimated, a few percent more bytes push the last round into the next night's window. The
forecast then states the range the estimated sizes allow (text, markdown, JSON) and the
fully measured finish lies inside it; far from a close it prints the single figure alone.
Through the CLI against a sandbox over TCP."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from test_forecast_sample import CHUNKS, skewed, zoned_in_halves
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)

AT = "2026-03-02T01:00:00+00:00"  # the window's opening: the route's time is all work
RATE = "2MiB/s"  # about half an hour of rounds: the band moves the finish by minutes

POLICY = """\
apiVersion: zonectl/v1
kind: ZonePolicy
balancer: {{enabled: true, activeWindow: {{start: "01:00", stop: "{stop}"}}}}
shards: {{s0: [A], s1: [A], s2: [A], s3: [A], s4: [B], s5: [B], s6: [B], s7: [B]}}
collections:
  t.skew:
    key: {{k: 1}}
    ranges:
      - {{zone: B, min: {{k: {{$minKey: 1}}}}, max: {{k: {q}}}}}
      - {{zone: A, min: {{k: {q}}}, max: {{k: {q3}}}}}
      - {{zone: B, min: {{k: {q3}}}, max: {{k: {{$maxKey: 1}}}}}}
"""


def plan(uri: str, policy: Path, fmt: str, *flags: str) -> str:
    result = CliRunner().invoke(
        app,
        ["plan", str(policy), "--uri", uri, "-f", fmt, "--copy-rate", RATE, "--at", AT, *flags],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def balancer(uri: str, policy: Path, *flags: str) -> dict[str, Any]:
    route: dict[str, Any] = json.loads(plan(uri, policy, "json", *flags))["forecast"]["balancer"]
    return route


def total_line(text: str) -> str:
    return next(line for line in text.splitlines() if "total by the balancer" in line)


@settings(
    max_examples=4,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # a shrink replans for minutes
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 2**16))
def test_a_finish_near_the_window_close_is_given_as_a_range_that_holds_the_measured_one(
    module_sandbox_server: Any, tmp_path_factory: Any, seed: int
) -> None:
    sb = module_sandbox_server(sandbox=skewed(seed))
    zoned_in_halves(sb)
    policy = tmp_path_factory.mktemp("window") / "policy.yaml"
    q = CHUNKS // 4

    # Far from any close: the window stays open for 22 hours after a half-hour route.
    policy.write_text(POLICY.format(stop="23:00", q=q, q3=3 * q), encoding="utf-8")
    far = balancer(sb.uri, policy)
    assert far["seconds"] is not None and far["seconds"] < 3 * 3600, far
    assert far["low_seconds"] is None and far["high_seconds"] is None, far
    assert "between" not in total_line(plan(sb.uri, policy, "text"))

    # The window closes within a minute after the sampled finish: 20 % more bytes would
    # start rounds after the close, so the high end lies in the next night's window.
    minutes = math.ceil(far["seconds"] / 60)
    stop = f"{1 + minutes // 60:02d}:{minutes % 60:02d}"
    policy.write_text(POLICY.format(stop=stop, q=q, q3=3 * q), encoding="utf-8")
    near = balancer(sb.uri, policy)
    assert near["seconds"] == far["seconds"]  # the single figure is the same
    low, high = near["low_seconds"], near["high_seconds"]
    assert low is not None and high is not None, near
    assert low <= near["seconds"] <= high and high - low > 12 * 3600, near
    assert near["low_at"] < near["at"] <= near["high_at"]
    measured = balancer(sb.uri, policy, "--measure-chunks", "5000")
    assert measured["low_seconds"] is None  # nothing estimated: nothing to range over
    assert low <= measured["seconds"] <= high, (low, measured["seconds"], high)

    text = total_line(plan(sb.uri, policy, "text"))
    assert "window close" in text and "--measure-chunks N" in text, text
    assert f"the {stop} window close" in text, text
    markdown = plan(sb.uri, policy, "markdown")
    assert "measure more chunks with --measure-chunks N to narrow it)" in markdown, markdown
