"""Fixtures for the cluster-model tests: a served sandbox with three shards, driven over TCP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def cluster(sandbox_server: Callable[..., Any], server_version: str) -> Any:
    """Shards s0, s1, s2 added through addShard; `test.c` sharded on {x: 1}; per version."""
    handle = sandbox_server(server_version)
    admin = handle.client.admin
    for i in range(3):
        admin.command("addShard", f"rs{i}/host{i}:27018", name=f"s{i}")
    admin.command("enableSharding", "test")
    admin.command("shardCollection", "test.c", key={"x": 1})
    return handle
