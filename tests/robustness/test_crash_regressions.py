"""Each internal error found (issue 29), as the command that crashed: now a plan, a warning
or a clear error with a documented exit code."""

from __future__ import annotations

from pathlib import Path

from robust_kit import zonectl

ROOT = Path(__file__).resolve().parents[2]

MISSING_WITH_ROUTE = """\
apiVersion: zonectl/v1
kind: ZonePolicy
shards:
  shard-std-0: [archive, eu]
  shard-std-1: [archive, eu]
collections:
  app.nosuch:
    key: {region: 1}
    migrate: reshard
    ranges:
      - {zone: eu, min: {region: "eu"}, max: {region: "fr"}}
"""


def test_reshard_route_on_a_missing_namespace_plans_its_ranges_with_a_warning(
    tmp_path: Path,
) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text(MISSING_WITH_ROUTE)
    run = zonectl("plan", str(policy), "--uri", "sandbox:", "--format", "json")
    assert run.crashed() is None, run.show()
    assert run.code == 0, run.show()
    assert '"assign_zone_range"' in run.out and "reshard_collection" not in run.out
    assert "app.nosuch is not sharded: `migrate: reshard` has nothing to reshard" in run.err


def test_the_repository_policies_directory_is_refused_not_crashed() -> None:
    """policies/ holds the demo and the examples, written for other clusters: each command
    names the problems (unknown shards) instead of failing inside."""
    policies = str(ROOT / "policies")
    runs = [
        zonectl("plan", policies, "--uri", "sandbox:"),
        zonectl("status", policies, "--uri", "sandbox:", "--format", "openmetrics"),
        zonectl("rotate", policies, "--yes", "--uri", "sandbox:"),
    ]
    for run in runs:
        assert run.crashed() is None, run.show()
    assert runs[0].code == 1 and "unknown shard 'shard-kc-eu-0'" in runs[0].err
    assert runs[2].code == 1 and "unknown shard" in runs[2].err
