"""What a live capture keeps (version and FCV, jumbo flags, balancer settings, per-collection
fields, sizes) and what a user with fewer privileges gets: the twin still, and the missing
privilege named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bson import MaxKey, MinKey
from pymongo import MongoClient
from ruamel.yaml import YAML
from twin_util import SLOW, run

from zonectl.sandbox import uri as sandbox_uri

EXAMPLES = Path(__file__).resolve().parents[2] / "policies" / "examples"

COLLECTION = """    jumbo: [2, 7]
    noBalance: true
"""
SETTINGS = """balancer:
  copyRate: 8MiB/s
  activeWindow: {start: "01:00", stop: "05:00"}
  chunkSizeMB: 64
"""
USERS = """users:
  - {user: mon, pwd: pw, db: admin, roles: [clusterMonitor, {role: read, db: config}]}
  - {user: cfg, pwd: pw, db: admin, roles: [{role: read, db: config}]}
"""


def _cluster(tmp_path: Path, extra: str = "") -> Path:
    text = SLOW.replace("balancer: {copyRate: 8MiB/s}\n", SETTINGS) + extra
    at = text.index("zones:\n")
    text = text[:at] + COLLECTION + text[at:]
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    return path


def test_the_twin_keeps_version_fcv_jumbo_settings_and_sizes(tmp_path: Path) -> None:
    path = _cluster(tmp_path)
    twin = tmp_path / "t.yaml"
    with sandbox_uri.start(f"sandbox:{path}?version=6.0") as real:
        assert run("twin", "--uri", real.uri, "-o", str(twin)).exit_code == 0
        cluster = real.sandbox.cluster
        want_sizes = cluster.chunks("app.e").data_sizes()
        want_settings = {d["_id"]: d for d in cluster.coll("config.settings")}
    with sandbox_uri.start(f"sandbox:{twin}") as served:
        sandbox = served.sandbox
        assert sandbox.version.major_minor == "6.0"
        store = sandbox.cluster.chunks("app.e")
        assert store is not None
        assert [i for i in range(len(store)) if store.jumbo_at(i)] == [2, 7]
        assert sandbox.cluster.collection_doc("app.e")["noBalance"] is True
        got = {d["_id"]: d for d in sandbox.cluster.coll("config.settings")}
        assert got["balancer"]["activeWindow"] == want_settings["balancer"]["activeWindow"]
        assert got["chunksize"]["value"] == 64
        for shard, total in want_sizes.items():
            # $shardedDataDistribution's ownedSizeBytes is avgObjSize x documents: near, not exact
            assert abs(store.data_sizes()[shard] - total) <= 0.001 * total


def test_a_user_without_cluster_monitor_gets_a_twin_and_the_privileges_named(
    tmp_path: Path,
) -> None:
    path = _cluster(tmp_path, USERS)
    with sandbox_uri.start(f"sandbox:{path}?auth=true") as real:
        for user, named in (("mon", False), ("cfg", True)):
            twin = tmp_path / f"{user}.yaml"
            uri = real.uri.replace("mongodb://", f"mongodb://{user}:pw@")
            out = run("twin", "--uri", uri, "-o", str(twin))
            assert out.exit_code == 0, out.output
            assert (
                "$shardedDataDistribution: needs the shardedDataDistribution" in out.output
            ) is named
            assert "pw@" not in twin.read_text() and "127.0.0.1" not in twin.read_text()
            with sandbox_uri.start(f"sandbox:{twin}") as served:
                assert len(served.sandbox.cluster.chunks("app.e")) == 24


def test_measure_reads_each_chunk_and_usage_errors_exit_2(tmp_path: Path) -> None:
    path = _cluster(tmp_path)
    twin = tmp_path / "m.yaml"
    with sandbox_uri.start(f"sandbox:{path}") as real:
        out = run("twin", "--uri", real.uri, "-o", str(twin), "--measure")
        assert out.exit_code == 0, out.output
        want = real.sandbox.cluster.chunks("app.e").sizes()
        assert run("twin", "--uri", real.uri).exit_code == 2  # no -o
        both = run("twin", "--dump", str(tmp_path), "--archive", str(path), "-o", str(twin))
        assert both.exit_code == 2
    assert "measured per chunk (dataSize" in twin.read_text()
    with sandbox_uri.start(f"sandbox:{twin}") as served:
        assert served.sandbox.cluster.chunks("app.e").sizes()[0] == want[0]


def test_unsharded_collections_are_captured_where_they_live(tmp_path: Path) -> None:
    """The twin holds each unsharded collection with its kind and size, on its database's
    primary or where an 8.0 moveCollection put it (so a policy pinning them, the
    collection-per-day example, plans the same moves on the twin). Zone ranges of a
    collection not created yet (config.tags) are no collection; anonymized, no name stays."""
    cluster = EXAMPLES / "clusters" / "collection-per-day.yaml"
    out, anonymous = tmp_path / "twin.yaml", tmp_path / "anon.yaml"
    moved, fast = "metrics.events_20261123", "shard-days-fast-1"
    with (
        sandbox_uri.start(f"sandbox:{cluster}?version=8.0") as handle,
        MongoClient(handle.uri) as client,
    ):
        client.admin.command("moveCollection", moved, toShard=fast)
        client.metrics.create_collection("capped_log", capped=True, size=8192)
        client.admin.command("addShardToZone", fast, zone="later")
        client.admin.command(
            "updateZoneKeyRange", "metrics.not_yet", min={"_id": MinKey()},
            max={"_id": MaxKey()}, zone="later",
        )  # fmt: skip
        source = _unsharded(client)
        result = run("twin", "--uri", handle.uri, "-o", str(out))
        assert result.exit_code == 0, result.output
        hidden = run("twin", "--uri", handle.uri, "-o", str(anonymous), "--anonymize")
        assert hidden.exit_code == 0, hidden.output
    assert "not captured" not in result.stderr
    assert source[moved][0] == fast and len(source) == 10
    with sandbox_uri.start(f"sandbox:{out}") as served, MongoClient(served.uri) as client:
        assert _unsharded(client) == source
    text = anonymous.read_text()
    assert "events_2026" not in text and "capped_log" not in text and fast not in text
    entries = YAML(typ="safe", pure=True).load(text)["unsharded"]
    assert len(entries) == 10 and [e.get("type") for e in entries].count("capped") == 1
    assert len([e for e in entries if "shard" in e]) == 1  # the moved one, renamed


def _unsharded(client: MongoClient[Any]) -> dict[str, tuple[str, int, int, bool]]:
    """ns -> (the shard holding it, bytes, documents, capped), as collStats through the
    mongos says."""
    out = {}
    for info in client.metrics.list_collections():
        stats = client.metrics.command("collStats", info["name"])
        ((shard, held),) = stats["shards"].items()
        capped = bool(info.get("options", {}).get("capped"))
        out[f"metrics.{info['name']}"] = (shard, held["size"], held["count"], capped)
    return out
