"""A twin of a cluster caught mid-drain keeps the shard draining: the cluster file carries
`draining: true`, the sandbox serving it marks the shard so in config.shards, and status
of the twin shows the drain."""

from __future__ import annotations

from pathlib import Path

import pymongo
from ruamel.yaml import YAML
from views_kit import CLUSTER, zonectl

from zonectl.sandbox import uri as sandbox_uri


def test_a_captured_draining_shard_stays_draining_in_the_twin(tmp_path: Path) -> None:
    source = tmp_path / "cluster.yaml"
    source.write_text(CLUSTER, encoding="utf-8")
    twin = tmp_path / "t.twin.yaml"
    with sandbox_uri.start(f"sandbox:{source}?version=7.0") as real:
        out = zonectl("twin", "--uri", real.uri, "-o", str(twin))
        assert out.exit_code == 0, out.output
    assert "was draining" not in out.output  # no note that the twin lost the drain
    shards = YAML(typ="safe", pure=True).load(twin.read_text(encoding="utf-8"))["shards"]
    assert [(s["name"], s.get("draining", False)) for s in shards] == [
        ("s0", False),
        ("s1", True),
        ("s2", False),
    ]
    with sandbox_uri.start(f"sandbox:{twin}") as served:
        with pymongo.MongoClient(served.uri, serverSelectionTimeoutMS=5000) as client:
            docs = {d["_id"]: d for d in client.config.shards.find()}
        assert docs["s1"]["draining"] is True
        assert "draining" not in docs["s0"] and "draining" not in docs["s2"]
