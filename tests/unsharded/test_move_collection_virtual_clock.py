"""Regression (issue 29's property test): `apply` or `rotate` of an 8.0 pin of an unsharded
collection against an in-process `sandbox:` URI, whose virtual clock nobody steps, ends: the
sandbox jumps its clock to the moveCollection's end once quiet, as to a migration's commit."""

from __future__ import annotations

from pathlib import Path

import pytest
from unsharded_kit import CLUSTER, PIN_POLICY, zonectl

# rotate places only what patterns match (and windows): the same pin, by pattern.
PATTERN_PIN = PIN_POLICY.replace("shop.orders: {pin: logs}", '"shop.ord*": {pin: logs}')


@pytest.mark.timeout(60)  # it used to hang forever
@pytest.mark.parametrize("command", ["apply", "rotate"])
def test_an_unsharded_pin_against_a_sandbox_uri_completes(tmp_path: Path, command: str) -> None:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    policy = tmp_path / "policy.yaml"
    policy.write_text(PATTERN_PIN)
    state = tmp_path / "state.bin"
    uri = f"sandbox:{tmp_path / 'cluster.yaml'}?version=8.0&state={state}"
    code, out, _ = zonectl("plan", str(policy), "--uri", uri, "--detailed-exitcode")
    assert code == 4, out
    assert "moveCollection from s0 to s1" in out
    code, _, err = zonectl(command, str(policy), "--uri", uri, "--yes")
    assert code == 0, err
    # The state file kept what the command did: the move ended, nothing is left to do.
    code, out, _ = zonectl("plan", str(policy), "--uri", uri, "--detailed-exitcode")
    assert code == 0, out
    assert "No changes" in out and "moveCollection" not in out
