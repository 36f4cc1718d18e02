"""Below 7.2 the forecast says once that the reshard route needs 7.2+ (it is the cluster's
version, not each collection's), naming the collections it is not forecast for."""

from __future__ import annotations

from pathlib import Path

import pytest
from reshard_kit import zonectl

DEMO = str(Path(__file__).resolve().parents[2] / "policies" / "demo")


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_7_0_forecast_says_the_route_needs_7_2_once(fmt: str) -> None:
    code, out, err = zonectl("plan", DEMO, "--uri", "sandbox:?version=7.0", "-f", fmt)
    assert code == 0, err
    assert out.count("needs 7.2+") == 1, out
    assert "not forecast for 3 collections (app.audit, app.events, app.users)" in out


def test_an_8_0_forecast_compares_the_route_per_collection() -> None:
    code, out, err = zonectl("plan", DEMO, "--uri", "sandbox:?version=8.0")
    assert code == 0, err
    assert "needs 7.2+" not in out
    assert out.count("reshard route (migrate: reshard)") == 3
