"""Fixtures for the disk guard through the CLI (see capacity_kit)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from capacity_kit import cluster, make_sandbox


@pytest.fixture
def served(sandbox_server: Callable[..., Any]) -> Callable[..., Any]:
    """served(chunks=128, version="8.0", **kwargs) -> a SandboxHandle of the seeded cluster;
    kwargs go to Sandbox (auth=)."""

    def make(chunks: int = 128, version: str = "8.0", **kwargs: Any) -> Any:
        return sandbox_server(version, sandbox=make_sandbox(version, cluster(chunks), **kwargs))

    return make
