"""Fixtures for apply: a seeded sandbox served over TCP per test (35 ms to build, so every
case starts from the same state without a reset protocol); the helpers are in apply_kit."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apply_kit import CLUSTER, Cluster, Make, Tap

from zonectl.sandbox.auth.users import AuthConfig
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox


@pytest.fixture
def make_cluster(sandbox_server: Callable[..., Any]) -> Iterator[Make]:
    def make(version: str = "7.0", *, auth: bool = False, cluster: Path = CLUSTER) -> Cluster:
        spec = seed.load(cluster)
        config: AuthConfig | None = seed.auth_config(spec) if auth else None
        sb = Sandbox(version, auth=config)
        seed.seed(sb, spec, str(cluster))
        options = {"username": "ops", "password": "s3cr3t-pw"} if auth else {}
        handle = sandbox_server(sandbox=sb, client_options={**options, "tz_aware": True})
        uri = handle.uri
        return Cluster(sb, uri, handle.client, Tap(sb), handle)

    yield make


@pytest.fixture
def cluster(make_cluster: Make) -> Cluster:
    return make_cluster()
