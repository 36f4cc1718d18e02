"""Fixtures for the balancer tests: a served sandbox seeded with shards and one collection.

Clusters are built through the cluster model (the way seeding does), zones and ranges
through real pymongo commands; the balancer is driven step by step with a frozen clock,
so no test waits for a real balancer interval.
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

    def chunks(self, ns: str = "db.c") -> list[dict[str, Any]]:
        """config.chunks of ns through pymongo, in min order."""
        config = self.client.config
        coll = config.collections.find_one({"_id": ns})
        assert coll is not None
        return list(config.chunks.find({"uuid": coll["uuid"]}).sort("min", 1))

    def set_setting(self, _id: str, **fields: Any) -> None:
        """$set on a config.settings document (upsert), as mongosh's helpers write it."""
        coll = self.sandbox.cluster.coll("config.settings")
        coll.put({**(coll.get(_id) or {"_id": _id}), **fields})

    def zone(self, shard: str, zone: str) -> None:
        self.admin.command("addShardToZone", shard, zone=zone)

    def zone_range(self, lo: Any, hi: Any, zone: str | None, ns: str = "db.c") -> None:
        self.admin.command("updateZoneKeyRange", ns, min=lo, max=hi, zone=zone)


def bounds(points: Sequence[int], field: str = "x") -> list[dict[str, Any]]:
    return [{field: MinKey()}, *({field: p} for p in points), {field: MaxKey()}]


Make = Callable[..., Cluster]


@pytest.fixture
def make_cluster(sandbox_server: Any) -> Make:
    def make(
        version: str = "7.0",
        *,
        shards: int = 3,
        points: Sequence[int] = (),
        placement: Sequence[str] | None = None,
        chunk_mb: float = 0.5,
        docs_per_chunk: int = 100,
        chunksize_mb: int | None = 1,
        key: dict[str, Any] | None = None,
        ns: str = "db.c",
    ) -> Cluster:
        handle = sandbox_server(version)
        sb = handle.sandbox
        sb.clock.set(NOON)
        for n in range(shards):
            sb.cluster.add_shard(f"shard{n}", f"rs{n}/localhost:{27018 + n}")
        cluster = Cluster(handle)
        if chunksize_mb is not None:
            cluster.set_setting("chunksize", value=chunksize_mb)
        key = key or {"x": 1}
        field = next(iter(key))
        edges = bounds(points, field)
        if len(key) > 1:
            edges = [{**b, **{f: MinKey() for f in list(key)[1:]}} for b in edges]
            edges[-1] = {f: MaxKey() for f in key}
        n_chunks = len(edges) - 1
        where = list(placement) if placement is not None else ["shard0"] * n_chunks
        sb.cluster.create_collection(
            ns,
            key,
            bounds=edges,
            shards=where,
            sizes=[int(chunk_mb * MB)] * n_chunks,
            counts=[docs_per_chunk] * n_chunks,
        )
        return cluster

    return make
