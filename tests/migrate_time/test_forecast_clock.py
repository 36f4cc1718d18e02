"""The forecast judges "now" by the cluster's clock (hello.localTime), not this host's: the
migrations the cluster dated on its own clock are never "in the future" of the forecast,
whether the cluster's clock is ahead of this host or a sandbox: URI run resumes the
simulated time a previous command advanced (the README tour's apply --migrate)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from six_shards import CLUSTER, POLICY
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

NEXT = POLICY.replace("1300", "2000")


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def _history(args: list[str]) -> dict[str, Any]:
    result = run(*args, "-f", "json")
    assert result.exit_code == 0, result.stderr
    return dict(json.loads(result.stdout)["forecast"]["cost"]["history"])


def test_after_a_sandbox_apply_migrate_the_next_run_sees_no_clock_skew(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "first.yaml").write_text(POLICY)
    uri = f"sandbox:{tmp_path / 'cluster.yaml'}?state={tmp_path / 'state.json'}"
    started = dt.datetime.now(dt.UTC)
    assert (
        run("apply", str(tmp_path / "first.yaml"), "--uri", uri, "--yes", "--migrate").exit_code
        == 0
    )
    history = _history(["status", "--uri", uri])
    assert history["migrations"] == 12
    # The migrations took simulated minutes: their entries are dated after this host's now,
    # yet on the cluster's clock, which resumed there, none is in the future.
    newest = dt.datetime.fromisoformat(history["newest"].replace("Z", "+00:00"))
    assert newest - started > dt.timedelta(seconds=10)  # beyond the 5 s tolerance
    assert history["clock_skew_seconds"] == 0
    text = run("status", "--uri", uri).stdout
    assert "clock skew" not in text
    # In-process, zonectl and the simulated cluster share one clock: doctor sees no skew.
    clock = [line for line in run("doctor", "--uri", uri).stdout.splitlines() if "clock" in line]
    assert clock and clock[0].startswith("ok    clock"), clock


def test_a_cluster_clock_ahead_of_this_host_dates_nothing_in_the_future(
    sandbox_server: Any, tmp_path: Path
) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER)
    sb = Sandbox("7.0")
    spec = seed.load(path)
    seed.seed(sb, spec, str(path))
    seed.apply_costs(sb, spec, None)
    sb.clock.set(dt.datetime.now(dt.UTC) + dt.timedelta(hours=3))
    handle = sandbox_server(sandbox=sb)
    (tmp_path / "first.yaml").write_text(POLICY)
    (tmp_path / "next.yaml").write_text(NEXT)
    applied = run("apply", str(tmp_path / "first.yaml"), "--uri", handle.uri, "--yes", "--migrate")
    assert applied.exit_code == 0, applied.stderr
    history = _history(["plan", str(tmp_path / "next.yaml"), "--uri", handle.uri])
    assert history["migrations"] == 12
    newest = dt.datetime.fromisoformat(history["newest"].replace("Z", "+00:00"))
    assert newest - dt.datetime.now(dt.UTC) > dt.timedelta(hours=2)  # this host's future
    assert history["clock_skew_seconds"] == 0
    # A changelog entry dated after the cluster's own clock is still reported as skew.
    sb.clock.set(sb.clock.now() - dt.timedelta(hours=1))
    history = _history(["plan", str(tmp_path / "next.yaml"), "--uri", handle.uri])
    assert 3500 < history["clock_skew_seconds"] < 3700 + 3600
