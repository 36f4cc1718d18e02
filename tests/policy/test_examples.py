"""The shipped policies: every file validates alone or within its directory, the tree is
checked as independent policies (`validate --each`), the demo fits the sandbox demo
cluster, and the JSON Schema that `zonectl schema` prints accepts every example."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from zonectl.policy import load_policy

Run = Callable[..., tuple[int, str, str]]

POLICIES = Path(__file__).resolve().parents[2] / "policies"
EXAMPLES = sorted((POLICIES / "examples").glob("*.yaml"))
# Every policy file; policies/examples/clusters/ holds sandbox cluster files, no policies.
ALL_FILES = sorted((POLICIES / "demo").glob("*.yaml")) + EXAMPLES


def test_there_is_an_example_per_strategy() -> None:
    names = {p.stem for p in EXAMPLES}
    assert {"firehose", "tiered-storage", "location", "per-customer", "pinning", "hashed"} <= names
    assert {"collection-per-tenant", "collection-per-day"} <= names
    assert {"multi-hotspot", "gridfs", "manual-placement"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_each_example_is_valid_on_its_own_without_warnings(path: Path) -> None:
    assert load_policy([path]).diagnostics == []


def test_the_tree_validates_as_independent_policies_with_each(zonectl: Run) -> None:
    code, out, err = zonectl("validate", "--each", str(POLICIES / "demo"), *map(str, EXAMPLES))
    assert (code, out) == (0, "")
    lines = err.splitlines()
    assert len(lines) == 1 + len(EXAMPLES)
    assert all(": policy is valid: " in line and "0 warnings" in line for line in lines)
    assert lines[0].startswith(f"zonectl: {POLICIES / 'demo'}: policy is valid: 5 files")


def test_the_whole_tree_as_one_policy_is_refused_with_a_hint_to_each(zonectl: Run) -> None:
    """policies/ merged: the examples' own balancer section conflicts with the demo's, and
    the cluster files under examples/clusters/ are no policies."""
    code, _, err = zonectl("validate", str(POLICIES))
    assert code == 3
    assert "ZP132" in err and "clusters/firehose.yaml:" in err and "ZP113" in err
    assert "`zonectl validate --each PATH...` checks each path as a policy of its own" in err


def test_one_invalid_path_fails_each_and_is_named(zonectl: Run, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: zonectl/v1\nkind: ZonePolicy\nshards: {s0: [zz]}\nbogus: 1\n")
    code, out, err = zonectl("validate", "--each", str(EXAMPLES[0]), str(bad), "-f", "json")
    assert code == 3
    report = json.loads(out)
    assert report["valid"] is False and report["format_version"] == 1
    assert [(p["path"], p["valid"]) for p in report["policies"]] == [
        (str(EXAMPLES[0]), True),
        (str(bad), False),
    ]
    assert report["policies"][1]["diagnostics"][0]["code"] == "ZP110"
    assert f"zonectl: {bad}: policy is invalid: 1 error, 0 warnings" in err


def test_demo_policy_fits_the_sandbox_demo_cluster() -> None:
    desired = load_policy([POLICIES / "demo"]).desired
    cluster = YAML(typ="safe", pure=True).load(
        (Path(__file__).resolve().parents[2] / "zonectl/sandbox/seed/data/demo.yaml").read_text()
    )
    assert set(desired.shards) == {s["name"] for s in cluster["shards"]}
    live_keys = {c["ns"]: c["key"] for c in cluster["collections"]}
    for ns, coll in desired.collections.items():
        assert ns in live_keys, ns
        assert coll.key == live_keys[ns], ns
    assert desired.collections["app.events"].firehose is not None
    assert desired.collections["app.audit"].pin == "logs"
    assert desired.collections["app.reports"].balancing is False
    assert len(desired.collections["app.users"].ranges) == 3


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    from zonectl.policy.schema import policy_json_schema

    return policy_json_schema()


def test_schema_command_prints_the_schema(zonectl: Run, schema: dict[str, Any]) -> None:
    code, out, _ = zonectl("schema")
    assert code == 0
    assert json.loads(out) == schema
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(POLICIES)))
def test_schema_accepts_every_shipped_policy_file(path: Path, schema: dict[str, Any]) -> None:
    document = YAML(typ="safe", pure=True).load(path.read_text())
    jsonschema.Draft202012Validator(schema).validate(document)


def test_schema_rejects_what_the_loader_rejects_structurally(schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    bad = {"apiVersion": "zonectl/v1", "kind": "ZonePolicy", "collections": {"a.b": {"kye": 1}}}
    assert not validator.is_valid(bad)
    assert not validator.is_valid({"apiVersion": "zonectl/v2", "kind": "ZonePolicy"})
    key = {
        "apiVersion": "zonectl/v1",
        "kind": "ZonePolicy",
        "collections": {"a.b": {"key": {"x": -1}}},
    }
    assert not validator.is_valid(key)


def test_schema_has_descriptions_for_editors(schema: dict[str, Any]) -> None:
    firehose = schema["$defs"]["FirehoseModel"]["properties"]
    assert all("description" in prop for prop in firehose.values())
    bound = schema["$defs"]["RangeModel"]["properties"]["min"]
    assert bound["type"] == "object" and "Extended JSON" in bound["description"]
