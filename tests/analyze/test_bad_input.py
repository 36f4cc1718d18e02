"""Bad input for analyze: missing namespace, view, time-series collection, a user without the
analyzeShardKey privilege, a server without the command. Each is a finding, never a
traceback, and analyze writes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.analyze.kit import SHARDS, analyze, collection, rules, serve_cluster

CLUSTER = (
    SHARDS
    + """
collections:
  - {ns: app.c, key: {x: 1}, chunks: 4}
unsharded:
  - {ns: app.v, type: view}
  - {ns: app.metrics, type: timeseries}
"""
)


def test_missing_view_and_timeseries_namespaces_are_findings(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER)
    # app.nope is missing but the policy names it: a finding (a name neither the policy
    # nor the cluster has is a usage error: tests/namespace_option)
    policy = (
        "apiVersion: zonectl/v1\nkind: ZonePolicy\ncollections:\n  app.nope: {balancing: true}\n"
    )
    code, report, err = analyze(
        handle.uri, tmp_path, policy, "-n", "app.nope", "-n", "app.v", "-n", "app.metrics"
    )
    assert code == 0, err
    assert rules(report, "app.nope") == {"ZA001"}
    assert rules(report, "app.v") == {"ZA002"}
    assert rules(report, "app.metrics") == {"ZA003"}
    assert "Traceback" not in err


def test_a_server_before_7_0_reports_metrics_unavailable(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER, version="6.0")
    _, report, _ = analyze(handle.uri, tmp_path, None, "-n", "app.c")
    finding = next(f for f in collection(report, "app.c")["findings"] if f["rule"] == "ZA004")
    assert "new in 7.0" in finding["evidence"]


def _served_with_user(sandbox_server: Any, roles: str) -> str:
    """A served sandbox with authentication and one user `watcher` holding `roles`; its
    URI with the user's credentials."""
    from zonectl.sandbox.seed.build import auth_config, seed
    from zonectl.sandbox.seed.schema import load_cluster_file
    from zonectl.sandbox.state import Sandbox

    text = CLUSTER + f"users:\n  - {{user: watcher, pwd: pw, roles: {roles}}}\n"
    spec = load_cluster_file("cluster.yaml", text)
    sandbox = Sandbox("7.0", auth=auth_config(spec))
    seed(sandbox, spec)
    options = {"username": "watcher", "password": "pw"}
    handle = sandbox_server("7.0", sandbox=sandbox, client_options=options)
    return str(handle.uri).replace("mongodb://", "mongodb://watcher:pw@")


def test_a_user_without_the_privilege_reports_metrics_unavailable(
    sandbox_server: Any, tmp_path: Path
) -> None:
    uri = _served_with_user(sandbox_server, "[clusterMonitor, readAnyDatabase]")
    code, report, err = analyze(uri, tmp_path, None, "-n", "app.c")
    assert code == 0, err
    finding = next(f for f in collection(report, "app.c")["findings"] if f["rule"] == "ZA004")
    assert "not authorized" in finding["evidence"]
    assert "pw@" not in err


def test_a_cluster_manager_gets_the_key_metrics(sandbox_server: Any, tmp_path: Path) -> None:
    uri = _served_with_user(sandbox_server, "[clusterMonitor, clusterManager, readAnyDatabase]")
    code, report, err = analyze(uri, tmp_path, None, "-n", "app.c")
    assert code == 0, err
    assert "ZA004" not in rules(report, "app.c")
    names = {f["name"] for f in collection(report, "app.c")["figures"]}
    assert {"cardinality", "most common value"} <= names


def test_analyze_never_writes(sandbox_server: Any, tmp_path: Path) -> None:
    # Every state-changing command fails while the fail point is on: analyze must not
    # notice, and the cluster's metadata must be unchanged afterwards.
    handle = serve_cluster(sandbox_server, CLUSTER)
    writes = ["insert", "update", "delete", "findAndModify", "updateZoneKeyRange",
              "addShardToZone", "removeShardFromZone", "moveChunk", "moveRange", "split",
              "mergeChunks", "balancerStop", "balancerStart", "configureCollectionBalancing",
              "clearJumboFlag", "shardCollection", "create", "drop"]  # fmt: skip
    handle.client.admin.command(
        "configureFailPoint", "failCommand", mode="alwaysOn",
        data={"failCommands": writes, "errorCode": 2},
    )  # fmt: skip

    def snapshot() -> dict[str, list[Any]]:
        config = handle.client.config
        return {
            name: list(config[name].find({}, sort=[("_id", 1)]))
            for name in ("shards", "tags", "collections", "settings", "chunks")
        }

    before = snapshot()
    code, report, err = analyze(handle.uri, tmp_path)
    assert code == 0, err
    assert report["collections"]
    assert snapshot() == before


def test_a_malformed_namespace_is_a_usage_error_before_connecting(tmp_path: Path) -> None:
    code, report, err = analyze("mongodb://127.0.0.1:1/", tmp_path, None, "-n", "nodot")
    assert code == 2 and report == {}
    assert "--namespace 'nodot': expected a namespace db.collection" in err
