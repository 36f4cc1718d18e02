"""Collection-per-period windows: the newest `keep` slices pinned hot, older ones cold, moved
by moveCollection on 8.0 as days pass; and the template's validation."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from unsharded_kit import home_of, ticking, zonectl

POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
shards:
  s0: [hot]
  s1: [logs]
  s2: [logs]
collections:
  "metrics.events_%Y%m%d":
    slices: {schedule: "0 0 * * *", timezone: UTC, keep: 3, hot: hot, cold: logs}
"""
CLUSTER = """
shards:
  - {name: s0, zones: [hot]}
  - {name: s1, zones: [logs]}
  - {name: s2, zones: [logs]}
databases:
  - {name: metrics, primary: s1}
"""
DAY0 = dt.date(2026, 11, 20)


def test_a_collection_per_day_rotates_over_a_simulated_week(served: Any, tmp_path: Path) -> None:
    sb = served("8.0", CLUSTER)
    policy = tmp_path / "days.yaml"
    policy.write_text(POLICY)
    for n in range(7):
        day = DAY0 + dt.timedelta(days=n)
        sb.client.metrics[f"events_{day:%Y%m%d}"].insert_one({"n": n})
        at = f"{day:%Y-%m-%d}T00:05:00Z"
        with ticking(sb.sandbox):
            code, out, err = zonectl("rotate", str(policy), "--uri", sb.uri, "--at", at, "--yes")
        assert code == 0, err
        assert f"metrics.events_{day:%Y%m%d} (from pattern 'metrics.events_%Y%m%d')" in out
        for back in range(n + 1):
            name = f"metrics.events_{day - dt.timedelta(days=back):%Y%m%d}"
            where = home_of(sb.client, name)
            if back < 3:
                assert where == "s0", (day, name, where)
            else:
                assert where in {"s1", "s2"}, (day, name, where)
        code, out, err = zonectl("rotate", str(policy), "--uri", sb.uri, "--at", at, "--yes")
        assert (code, out) == (0, ""), err


def test_plan_says_which_slices_are_hot(served: Any, tmp_path: Path) -> None:
    sb = served("7.0", CLUSTER)
    for day in ("20261120", "20261125"):
        sb.client.metrics[f"events_{day}"].insert_one({})
    policy = tmp_path / "days.yaml"
    policy.write_text(POLICY)
    code, out, _ = zonectl(
        "plan", str(policy), "--uri", sb.uri, "--at", "2026-11-26T12:00:00Z", "-f", "json"
    )
    assert code == 0
    notes = "\n".join(json.loads(out)["notes"])
    assert "hot: metrics.events_20261125; logs: metrics.events_20261120" in notes
    assert "live outside zone hot (metrics.events_20261125); no zone can reach" in notes


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ('"metrics.events_%Q"', "use %Y (required)"),
        ('"metrics.events_%m%d"', "use %Y (required)"),
        ('"met%Y.events"', "the database part must be a plain database name"),
        ('"config.x_%Y"', "the config database is never managed"),
    ],
)
def test_bad_templates_are_validation_errors(tmp_path: Path, key: str, says: str) -> None:
    policy = tmp_path / "bad.yaml"
    policy.write_text(POLICY.replace('"metrics.events_%Y%m%d"', key))
    code, _, err = zonectl("validate", str(policy))
    assert code == 3 and says in err and "bad.yaml:8:3" in err


def test_slices_with_a_pin_is_refused(tmp_path: Path) -> None:
    policy = tmp_path / "bad.yaml"
    policy.write_text(POLICY.replace("cold: logs}", "cold: logs}\n    pin: hot"))
    code, _, err = zonectl("validate", str(policy))
    assert code == 3 and "drop pin, firehose and ranges" in err


EXAMPLE = Path(__file__).resolve().parents[2] / "policies/examples/collection-per-day.yaml"
EXAMPLE_CLUSTER = """
shards:
  - {name: shard-days-fast-0, zones: [days-hot]}
  - {name: shard-days-fast-1, zones: [days-hot]}
  - {name: shard-days-archive-0, zones: [days-cold]}
databases:
  - {name: metrics, primary: shard-days-archive-0}
"""


def test_the_shipped_collection_per_day_example_keeps_seven_berlin_days_hot(
    served: Any,
) -> None:
    sb = served("8.0", EXAMPLE_CLUSTER)
    hot = {"shard-days-fast-0", "shard-days-fast-1"}
    for n in range(9):
        day = DAY0 + dt.timedelta(days=n)
        sb.client.metrics[f"events_{day:%Y%m%d}"].insert_one({"n": n})
        at = f"{day:%Y-%m-%d}T00:05:00+01:00"  # just after Berlin midnight
        with ticking(sb.sandbox):
            code, _, err = zonectl("rotate", str(EXAMPLE), "--uri", sb.uri, "--at", at, "--yes")
        assert code == 0, err
        for back in range(n + 1):
            name = f"metrics.events_{day - dt.timedelta(days=back):%Y%m%d}"
            where = home_of(sb.client, name)
            assert (where in hot) == (back < 7), (day, name, where)
