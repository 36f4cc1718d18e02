"""The strategy examples (multi-hotspot, GridFS, manual placement) validate, plan and
converge against a sandbox built for each (policies/examples/clusters/): `apply --migrate`, then
the plan is empty and every chunk sits on a shard of its zone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.model.keys import compare
from zonectl.sandbox.seed.build import seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ("multi-hotspot", "gridfs", "manual-placement")


def _zonectl(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _out_of_zone(client: Any, ns: str) -> list[Any]:
    zones = {d["_id"]: set(d.get("tags", [])) for d in client.config.shards.find()}
    ranges = list(client.config.tags.find({"ns": ns}))
    uuid = client.config.collections.find_one({"_id": ns})["uuid"]
    bad = []
    for chunk in client.config.chunks.find({"uuid": uuid}):
        for r in ranges:
            inside = compare(r["min"], chunk["min"]) <= 0 and compare(chunk["max"], r["max"]) <= 0
            if inside and r["tag"] not in zones[chunk["shard"]]:
                bad.append(chunk)
    return bad


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_validates_plans_and_converges(
    sandbox_server: Callable[..., Any], name: str
) -> None:
    policy = str(ROOT / "policies" / "examples" / f"{name}.yaml")
    cluster = ROOT / "policies" / "examples" / "clusters" / f"{name}.yaml"
    sandbox = Sandbox("7.0")
    seed(sandbox, load_cluster_file(cluster), str(cluster))
    handle = sandbox_server(sandbox=sandbox)
    code, _, err = _zonectl("validate", policy)
    assert code == 0, err
    code, out, err = _zonectl("plan", policy, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 4, err
    code, _, err = _zonectl("apply", policy, "--uri", handle.uri, "--yes", "--migrate")
    assert code == 0, err
    code, out, err = _zonectl("plan", policy, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err
    for ns in {r["ns"] for r in handle.client.config.tags.find()}:
        assert _out_of_zone(handle.client, ns) == [], ns


def test_the_multi_hotspot_example_leaves_every_shard_an_insert_point(
    sandbox_server: Callable[..., Any], tmp_path: Path
) -> None:
    policy = str(ROOT / "policies" / "examples" / "multi-hotspot.yaml")
    cluster = ROOT / "policies" / "examples" / "clusters" / "multi-hotspot.yaml"
    sandbox = Sandbox("7.0")
    seed(sandbox, load_cluster_file(cluster), str(cluster))
    handle = sandbox_server(sandbox=sandbox)
    args = ["analyze", "--uri", handle.uri, "-n", "telemetry.readings", "--format", "json"]
    assert '"ZA131"' in _zonectl(*args)[1]  # before: the top chunks are on two shards
    assert _zonectl("apply", policy, "--uri", handle.uri, "--yes", "--migrate")[0] == 0
    code, out, err = _zonectl(*args)
    assert code == 0, err
    assert '"ZA131"' not in out
    assert "no inserts on" not in out
