"""Fixtures for shards leaving and joining: served sandboxes driven over TCP with pymongo.

`make_cluster` builds shards and one sharded collection through the cluster model (as
seeding does) on a frozen clock, so the balancer is stepped round by round; `seeded` serves a
sandbox seeded from a cluster file (spareShards included).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pymongo
import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

NOON = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
MB = 1024 * 1024


@dataclass
class Cluster:
    handle: Any  # tests/conftest.SandboxHandle

    @property
    def sandbox(self) -> Any:
        return self.handle.sandbox

    @property
    def client(self) -> pymongo.MongoClient[dict[str, Any]]:
        return self.handle.client  # type: ignore[no-any-return]

    @property
    def admin(self) -> Any:
        return self.client.admin

    @property
    def balancer(self) -> Any:
        return self.sandbox.balancer

    def counts(self, ns: str = "db.c") -> dict[str, int]:
        counts = {s: 0 for s in self.sandbox.cluster.shard_names()}
        counts.update(self.sandbox.cluster.chunks(ns).chunk_counts())
        return counts

    def set_setting(self, _id: str, **fields: Any) -> None:
        coll = self.sandbox.cluster.coll("config.settings")
        coll.put({**(coll.get(_id) or {"_id": _id}), **fields})

    def shard(self, name: str) -> dict[str, Any] | None:
        return self.client.config.shards.find_one({"_id": name})  # type: ignore[no-any-return]


@pytest.fixture
def make_cluster(sandbox_server: Any) -> Callable[..., Cluster]:
    def make(
        version: str = "7.0",
        *,
        shards: int = 3,
        placement: Sequence[str] = ("shard0",) * 6,
        chunk_mb: float = 0.5,
    ) -> Cluster:
        handle = sandbox_server(version)
        sb = handle.sandbox
        sb.clock.set(NOON)
        for n in range(shards):
            sb.cluster.add_shard(f"shard{n}", f"rs{n}/localhost:{27018 + n}")
        cluster = Cluster(handle)
        cluster.set_setting("chunksize", value=1)
        edges = [{"x": MinKey()}, *({"x": p} for p in range(1, len(placement))), {"x": MaxKey()}]
        sb.cluster.ensure_database("db", primary="shard1" if shards > 1 else "shard0")
        sb.cluster.create_collection(
            "db.c",
            {"x": 1},
            bounds=edges,
            shards=list(placement),
            sizes=[int(chunk_mb * MB)] * len(placement),
            counts=[100] * len(placement),
        )
        return cluster

    return make


@pytest.fixture
def seeded(sandbox_server: Any, tmp_path: Any) -> Callable[..., Cluster]:
    """A sandbox seeded from cluster-file YAML text, served."""

    def make(text: str, version: str = "7.0") -> Cluster:
        path = tmp_path / "cluster.yaml"
        path.write_text(text)
        sb = Sandbox(version)
        seed.seed(sb, load_cluster_file(path), str(path))
        return Cluster(sandbox_server(sandbox=sb))

    return make
