"""Fixtures for the key-change tests: a served sandbox with three shards and a sharded
collection holding documents, driven over TCP (tests/conftest.py's `sandbox_server`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


def seed(handle: Any, docs: int = 300) -> Any:
    """Shards s0..s2 (s2 in zone "eu"); `db.foo` sharded on {oldKey: 1}, split in three
    chunks over the shards, holding `docs` documents {oldKey: i, newKey: docs - i}."""
    admin = handle.client.admin
    for i in range(3):
        admin.command("addShard", f"rs{i}/host{i}:27018", name=f"s{i}")
    admin.command("addShardToZone", "s2", zone="eu")
    admin.command("enableSharding", "db")
    admin.command("shardCollection", "db.foo", key={"oldKey": 1})
    coll = handle.client.db.foo
    coll.insert_many([{"oldKey": i, "newKey": docs - i, "tenant": i % 7} for i in range(docs)])
    for point in (docs // 3, 2 * docs // 3):
        admin.command("split", "db.foo", middle={"oldKey": point})
    admin.command("moveChunk", "db.foo", find={"oldKey": docs // 2}, to="s1")
    admin.command("moveChunk", "db.foo", find={"oldKey": docs - 1}, to="s2")
    return handle


@pytest.fixture
def foo(sandbox_server: Callable[..., Any]) -> Callable[..., Any]:
    """`foo(version="8.0", fcv=None)`: a seeded, served sandbox (at a lower feature
    compatibility version when `fcv` names one)."""
    return lambda version="8.0", fcv=None, **kw: seed(sandbox_server(version, fcv=fcv), **kw)
