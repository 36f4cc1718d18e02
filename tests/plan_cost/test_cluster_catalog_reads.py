"""Issue 31 part 2 through the CLI: where the server has `$listClusterCatalog` (8.0.10+, 8.1+:
the 8.3 profile), a plan or status whose pattern spans many databases lists their
collections with one aggregation; on 8.0.4 it sends one listCollections per database, and
where the stage is refused (a user without clusterMonitor) it falls back to them silently.
Both paths give the same plan (hypothesis-generated clusters)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bson import MaxKey, MinKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.auth.users import AuthConfig, User
from zonectl.sandbox.catalog.unsharded import create_with_options, track_moved
from zonectl.sandbox.state import Sandbox
from zonectl.sandbox.wire.dispatch import Dispatcher

if not app.registered_commands:
    register(app)

SHARDS = {"fast-0": "hot", "fast-1": "hot", "std-0": "archive", "std-1": "archive"}
KINDS = ("plain", "capped", "view", "tracked", "sharded")
POLICY = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n" + "".join(
    f"  {s}: [{z}]\n" for s, z in SHARDS.items()
)


def _sandbox(version: str, layout: dict[str, list[str]], **kwargs: Any) -> Sandbox:
    """`layout`: database -> kinds of its collections, named `c<i>_<kind>`."""
    sb = Sandbox(version, **kwargs)
    for shard, zone in SHARDS.items():
        sb.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", (zone,))
    for db, kinds in layout.items():
        for i, kind in enumerate(kinds):
            ns = f"{db}.c{i}_{kind}"
            if kind == "sharded":
                bounds = [{"x": MinKey()}, {"x": 5}, {"x": MaxKey()}]
                sb.cluster.create_collection(ns, {"x": 1}, bounds=bounds, shards=["std-0"] * 2)
            elif kind == "view":
                create_with_options(sb.cluster, ns, {"viewOn": "c0_plain", "pipeline": []})
            elif kind == "capped":
                create_with_options(sb.cluster, ns, {"capped": True, "size": 4096})
            else:
                sb.catalog.ensure(ns).put({"_id": 1})
                if kind == "tracked":
                    track_moved(sb.cluster, ns, "fast-1")
    return sb


def _policy(tmp_path: Path) -> str:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY + 'collections:\n  "tenant_*.*":\n    pin: archive\n')
    return str(path)


def _run(uri: str, *args: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, [*args, "--uri", uri, "-f", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def _plan(sandbox_server: Any, tmp_path: Path, version: str, layout: Any) -> dict[str, Any]:
    sb = sandbox_server(sandbox=_sandbox(version, layout))
    return _run(sb.uri, "plan", _policy(tmp_path))


def _tenants(n: int) -> dict[str, list[str]]:
    return {f"tenant_{i:03d}": ["plain", "tracked"] for i in range(n)}


def _without_collstats(doc: dict[str, Any]) -> dict[str, int]:
    """Commands sent, less the collStats of each planned moveCollection (its size: one per
    moved collection, outside this read)."""
    commands = dict(doc["server_footprint"]["commands"])
    moves = sum(1 for op in doc["ops"] if op["kind"] == "move_collection")
    assert commands.pop("collStats", 0) == moves
    return commands


@pytest.mark.parametrize("version", ["8.3", "8.0.10"])
def test_where_the_stage_exists_one_aggregation_lists_every_database(
    sandbox_server: Any, tmp_path: Path, version: str
) -> None:
    """8.3, and 8.0 from its patch release 8.0.10 (buildInfo's version decides)."""
    small = _plan(sandbox_server, tmp_path, version, _tenants(3))
    large = _plan(sandbox_server, tmp_path, version, _tenants(40))
    for doc in (small, large):
        assert "listCollections" not in doc["server_footprint"]["commands"]
    moved = [op["namespace"] for op in large["ops"] if op["kind"] == "move_collection"]
    assert sum(1 for ns in moved if ns.endswith("_tracked")) == 40  # all on fast-1 (hot)
    # the tracked collections' shard came with the catalog: no config.chunks find each
    assert _without_collstats(large) == _without_collstats(small)


def test_on_8_0_4_each_database_costs_a_listcollections(
    sandbox_server: Any, tmp_path: Path
) -> None:
    small = _plan(sandbox_server, tmp_path, "8.0", _tenants(3))
    large = _plan(sandbox_server, tmp_path, "8.0", _tenants(40))
    assert small["server_footprint"]["commands"]["listCollections"] == 3
    assert large["server_footprint"]["commands"]["listCollections"] == 40
    grown = {
        kind: n - _without_collstats(small).get(kind, 0)
        for kind, n in _without_collstats(large).items()
    }
    # a listCollections per database, and a config.chunks find per tracked collection
    assert grown == {**dict.fromkeys(grown, 0), "listCollections": 37, "find": 37}


def _received(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(database, command or first stage) of every command the sandbox receives: what a
    server's command log would show."""
    seen: list[tuple[str, str]] = []
    original = Dispatcher.run

    def run(self: Dispatcher, session: Any, body: dict[str, Any], **kwargs: Any) -> Any:
        name = next(iter(body), "")
        pipeline = body.get("pipeline") if name == "aggregate" else None
        if isinstance(pipeline, list) and pipeline and isinstance(pipeline[0], dict):
            name = next(iter(pipeline[0]), name)
        seen.append((str(body.get("$db", "")), name))
        return original(self, session, body, **kwargs)

    monkeypatch.setattr(Dispatcher, "run", run)
    return seen


@pytest.mark.parametrize(("version", "catalogs", "lists"), [("8.3", 1, 0), ("8.0", 0, 12)])
def test_status_sends_one_catalog_aggregation_on_8_3_and_n_listcollections_on_8_0(
    sandbox_server: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    version: str,
    catalogs: int,
    lists: int,
) -> None:
    """status with a policy (compliance per namespace) reads the catalogue as plan does."""
    sb = sandbox_server(sandbox=_sandbox(version, _tenants(12)))
    seen = _received(monkeypatch)
    result = CliRunner().invoke(app, ["status", _policy(tmp_path), "--uri", sb.uri])
    assert result.exit_code == 0, result.stderr
    assert seen.count(("admin", "$listClusterCatalog")) == catalogs
    assert sum(1 for db, name in seen if name == "listCollections") == lists


def test_a_user_without_the_cluster_action_falls_back_to_listcollections(
    sandbox_server: Any, tmp_path: Path
) -> None:
    """clusterManager reads the config database and lists collections of every database it
    manages, but has no listClusterCatalog (clusterMonitor's): the plan is the same as
    root's, with one listCollections per database instead of the aggregation."""
    users = AuthConfig(
        users=[
            User("root", "admin", "pw", ("root",)),
            User("ops", "admin", "pw", ("clusterManager", "readAnyDatabase")),
        ],
        iterations_sha256=4096,
        iterations_sha1=4096,
    )
    sb = sandbox_server(sandbox=_sandbox("8.3", _tenants(5), auth=users))
    plans = {}
    for user in ("root", "ops"):
        uri = str(sb.uri).replace("mongodb://", f"mongodb://{user}:pw@")
        plans[user] = _run(uri, "plan", _policy(tmp_path))
    assert "listCollections" not in plans["root"]["server_footprint"]["commands"]
    assert plans["ops"]["server_footprint"]["commands"]["listCollections"] == 5
    assert plans["ops"]["ops"] == plans["root"]["ops"]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    layout=st.dictionaries(
        st.sampled_from([f"tenant_{i}" for i in range(6)] + ["other"]),
        st.lists(st.sampled_from(KINDS), min_size=1, max_size=4).map(lambda k: ["plain", *k]),
        min_size=1,
        max_size=4,
    )
)
def test_the_catalog_and_listcollections_paths_plan_the_same(
    sandbox_server: Any, tmp_path: Path, layout: dict[str, list[str]]
) -> None:
    with_catalog = _plan(sandbox_server, tmp_path, "8.3", layout)
    without = _plan(sandbox_server, tmp_path, "8.0", layout)
    assert "listCollections" not in with_catalog["server_footprint"]["commands"]
    wanted = sum(1 for db in layout if db.startswith("tenant_"))
    assert without["server_footprint"]["commands"].get("listCollections", 0) == wanted
    assert with_catalog["ops"] == without["ops"]
    assert with_catalog.get("notes") == without.get("notes")
