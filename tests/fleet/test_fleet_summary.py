"""A fleet run's summary line uses the words of its table's rows (a cluster whose overlay
is invalid is `invalid` in both), and `export -o DIR` leaves stdout empty: each cluster's
YAML is in its file, no `# cluster:` header without a document."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fleet_kit import POLICY, seeded, zonectl


def _inventory(write_inventory: Callable[[str], Path], good: Any, bad: Any) -> Path:
    return write_inventory(
        f"""\
apiVersion: zonectl/v1
kind: ClusterInventory
clusters:
  - name: good
    uri: {{value: "{good.uri}"}}
  - name: bad
    uri: {{value: "{bad.uri}"}}
    overlay:
      extraZones: {{shard-z: [hot]}}
"""
    )


def test_the_summary_counts_an_invalid_cluster_as_invalid_as_its_row_does(
    sandbox_server: Callable[..., Any], write_inventory: Callable[[str], Path]
) -> None:
    good, bad = sandbox_server(sandbox=seeded()), sandbox_server(sandbox=seeded())
    path = _inventory(write_inventory, good, bad)
    code, _, err = zonectl("plan", str(POLICY), "--inventory", str(path), "--all")
    assert code == 3
    assert "zonectl: fleet plan: 2 cluster(s), 1 ok, 0 failed, 1 invalid; exit 3" in err
    rows = {line.split()[0]: line.split()[1] for line in err.splitlines() if line[:2] == "  "}
    assert rows["good"] == "ok" and rows["bad"] == "invalid"


def test_export_to_a_directory_prints_nothing_on_stdout(
    sandbox_server: Callable[..., Any], write_inventory: Callable[[str], Path], tmp_path: Path
) -> None:
    one, two = sandbox_server(sandbox=seeded()), sandbox_server(sandbox=seeded())
    path = write_inventory(
        f"""\
apiVersion: zonectl/v1
kind: ClusterInventory
clusters:
  - name: one
    uri: {{value: "{one.uri}"}}
  - name: two
    uri: {{value: "{two.uri}"}}
"""
    )
    out_dir = tmp_path / "exported"
    code, out, err = zonectl("export", "--inventory", str(path), "--all", "-o", str(out_dir))
    assert code == 0, err
    assert out == ""
    assert sorted(p.name for p in out_dir.iterdir()) == ["one.yaml", "two.yaml"]
    assert "zonectl: fleet export: 2 cluster(s), 2 ok, 0 failed; exit 0" in err
    # To stdout, each cluster's document keeps its header.
    code, out, _ = zonectl("export", "--inventory", str(path), "--all")
    assert code == 0 and out.count("# cluster: ") == 2 and "kind: ZonePolicy" in out
