"""Property (issue 29): whatever policy meets whatever cluster, `plan`, `status POLICY` and
`rotate POLICY --yes` end with a message and a documented exit code, never an internal error
or a traceback. Clusters and policies are generated (generators.py); each command runs
through the CLI against a sandbox seeded from the generated cluster file."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from generators import cases
from hypothesis import HealthCheck, given, settings
from robust_kit import Run, zonectl

# Exit codes each command documents (README, DESIGN §3) for these runs.
ALLOWED = {"plan": {0, 1, 3}, "status": {0, 1, 3}, "rotate": {0, 1, 3, 5}}


def run_all(cluster: dict[str, Any], policy: dict[str, Any]) -> list[Run]:
    with tempfile.TemporaryDirectory() as tmp:
        cluster_file, policy_file = Path(tmp) / "cluster.yaml", Path(tmp) / "policy.yaml"
        cluster_file.write_text(json.dumps(cluster))
        policy_file.write_text(json.dumps(policy))
        uri = ("--uri", f"sandbox:{cluster_file}")
        plan = zonectl("plan", str(policy_file), *uri, "--format", "json")
        # rotate runs on every plan, moveCollections (8.0 pins of unsharded collections)
        # included: the sandbox's virtual clock jumps to a move's end once quiet.
        return [
            plan,
            zonectl("status", str(policy_file), *uri),
            zonectl("rotate", str(policy_file), "--yes", *uri),
        ]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=cases())
def test_no_policy_against_no_cluster_ends_in_an_internal_error(
    case: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    cluster, policy = case
    for run in run_all(cluster, policy):
        why = run.crashed()
        assert why is None, f"{why}: {run.show()}\ncluster: {cluster}\npolicy: {policy}"
        assert run.code in ALLOWED[run.args[0]], run.show()
