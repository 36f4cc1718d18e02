"""Each failure found (issue 29 and the property test beside this file), as the command that
failed: an internal error, or an op the server refuses. Now a plan, a warning or a clear
error with a documented exit code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
    """policies/ holds the demo and the examples, written for other clusters and each with
    its own balancer section: each command names the problem (two balancer sections, exit 3)
    instead of failing inside."""
    policies = str(ROOT / "policies")
    runs = [
        zonectl("plan", policies, "--uri", "sandbox:"),
        zonectl("status", policies, "--uri", "sandbox:", "--format", "openmetrics"),
        zonectl("rotate", policies, "--yes", "--uri", "sandbox:"),
    ]
    for run in runs:
        assert run.crashed() is None, run.show()
    for run in runs:
        assert run.code == 3, run.show()
        assert "error ZP132 the balancer section is also defined at" in run.err, run.show()


def cluster_file(tmp_path: Path, **spec: Any) -> str:
    """A small cluster file (JSON is YAML) and the URI that serves it."""
    base: dict[str, Any] = {
        "version": "7.0",
        "shards": [{"name": "s0", "zones": ["hot"]}, {"name": "s1", "zones": []}],
        "databases": [{"name": "app", "primary": "s0"}],
    }
    path = tmp_path / "cluster.yaml"
    path.write_text(json.dumps({**base, **spec}))
    return f"sandbox:{path}"


def write_policy(tmp_path: Path, collections: dict[str, Any], **top: Any) -> str:
    doc = {"apiVersion": "zonectl/v1", "kind": "ZonePolicy", **top, "collections": collections}
    path = tmp_path / "policy.yaml"
    path.write_text(json.dumps(doc))
    return str(path)


def test_rotate_places_a_pattern_matched_sharded_collection_with_range_ops(
    tmp_path: Path,
) -> None:
    """A pattern's pin on a sharded collection is a range op; rotate looked it up in a set
    of ops, and range ops (dict bounds) are not hashable: TypeError."""
    uri = cluster_file(tmp_path, collections=[{"ns": "app.h", "key": {"_id": "hashed"}}])
    policy = write_policy(tmp_path, {"app.[hp]*": {"pin": "hot"}}, shards={"s0": ["hot"]})
    run = zonectl("rotate", policy, "--yes", "--uri", uri)
    assert run.crashed() is None, run.show()
    assert run.code == 0, run.show()
    assert "app.h" in run.out + run.err


def test_rotate_leaves_a_pattern_range_in_a_zone_no_shard_carries_yet_to_apply(
    tmp_path: Path,
) -> None:
    """rotate adds no membership, so a pattern's range in a zone only the policy gives a
    shard would fail on the server (ZoneNotFound): it waits for apply, and says so."""
    uri = cluster_file(tmp_path, collections=[{"ns": "app.h", "key": {"_id": "hashed"}}])
    policy = write_policy(tmp_path, {"app.h*": {"pin": "cold"}}, shards={"s0": ["hot", "cold"]})
    run = zonectl("rotate", policy, "--yes", "--uri", uri)
    assert run.crashed() is None, run.show()
    assert run.code == 0 and "ZoneNotFound" not in run.err, run.show()
    assert "of pattern-matched namespaces are left for `zonectl apply`" in run.err
    assert "assign [{ _id: MinKey }, { _id: MaxKey }) of app.h to zone cold" in run.err


def test_sampling_of_a_collection_that_does_not_exist_is_warned_not_sent(tmp_path: Path) -> None:
    """configureQueryAnalyzer answers NamespaceNotFound for a missing collection: the plan
    had the op and apply failed on it. Now: a warning, no op, apply converges."""
    uri = cluster_file(tmp_path, unsharded=[{"ns": "app.plain"}])
    sampled = {"sampling": {"samplesPerSecond": 1}}
    policy = write_policy(tmp_path, {"app.nosuch": sampled, "app.plain": sampled})
    plan = zonectl("plan", policy, "--uri", uri, "--format", "json")
    assert plan.code == 0, plan.show()
    ops = [(op["kind"], op["namespace"]) for op in json.loads(plan.out)["ops"]]
    assert ops == [("set_query_analyzer", "app.plain")]
    assert "app.nosuch does not exist yet: `sampling` is planned once it is created" in plan.err
    applied = zonectl("apply", policy, "--yes", "--uri", uri)
    assert applied.crashed() is None and applied.code == 0, applied.show()


def test_a_uri_that_decodes_uuids_as_standard_plans_with_the_same_fingerprint(
    sandbox_server: Any,
) -> None:
    """`?uuidRepresentation=standard` makes pymongo return uuid.UUID, which the plan's
    fingerprint could not encode (ValueError: an internal error); the fingerprint is the
    same whichever representation the URI asks for."""
    from zonectl.sandbox.seed import build as seed
    from zonectl.sandbox.state import Sandbox

    sandbox = Sandbox("7.0")
    seed.seed(sandbox, seed.load(seed.demo_path()), str(seed.demo_path()))
    handle = sandbox_server(sandbox=sandbox)
    policy = ROOT / "policies" / "demo"
    plans = []
    for suffix in ("", "?uuidRepresentation=standard"):
        run = zonectl("plan", str(policy), "--uri", handle.uri + suffix, "--format", "json")
        assert run.crashed() is None, run.show()
        plans.append(json.loads(run.out) if run.out else run.show())
    assert plans[0]["fingerprint"] == plans[1]["fingerprint"]
