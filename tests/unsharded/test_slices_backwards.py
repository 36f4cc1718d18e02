"""A collection-per-period window only moves forward too: a rotate at an earlier instant
than the last one (or on a clock that jumped back) would bring cold slices back to the hot
zone; it is refused (exit 5, nothing sent) unless --allow-backwards."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from test_slices import CLUSTER, DAY0, POLICY
from unsharded_kit import home_of, ticking, zonectl


def _rotate(sb: Any, policy: Path, day: dt.date, *extra: str) -> tuple[int, str, str]:
    at = f"{day:%Y-%m-%d}T00:05:00Z"
    with ticking(sb.sandbox):
        return zonectl("rotate", str(policy), "--uri", sb.uri, "--at", at, "--yes", *extra)


def test_an_earlier_rotate_does_not_bring_cold_slices_back_without_allow_backwards(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0", CLUSTER)
    policy = tmp_path / "days.yaml"
    policy.write_text(POLICY)
    days = [DAY0 + dt.timedelta(days=n) for n in range(5)]
    for day in days:
        sb.client.metrics[f"events_{day:%Y%m%d}"].insert_one({})
    code, _, err = _rotate(sb, policy, days[4])  # hot: the last 3 days, cold: days 0 and 1
    assert code == 0, err
    cold = [f"metrics.events_{d:%Y%m%d}" for d in days[:2]]
    assert {home_of(sb.client, ns) for ns in cold} <= {"s1", "s2"}
    code, out, err = _rotate(sb, policy, days[1])  # as if the clock were 3 days behind
    assert code == 5, err
    assert "refusing to move 2 slice(s) backwards; nothing was sent" in err
    for ns in cold:
        assert f"{ns}: slice in zone logs would return to zone hot" in err
    assert out == ""
    assert {home_of(sb.client, ns) for ns in cold} <= {"s1", "s2"}
    code, _, err = _rotate(sb, policy, days[1], "--allow-backwards")
    assert code == 0, err
    assert "--allow-backwards: moving 2 slice(s) back" in err
    assert {home_of(sb.client, ns) for ns in cold} == {"s0"}
