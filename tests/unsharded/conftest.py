"""Fixtures for unsharded pins, namespace patterns and collection windows (see unsharded_kit)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from unsharded_kit import CLUSTER, make_sandbox


@pytest.fixture
def served(sandbox_server: Callable[..., Any]) -> Callable[..., Any]:
    """served(version) -> a SandboxHandle of the seeded three-shard cluster."""

    def make(version: str = "8.0", text: str = CLUSTER) -> Any:
        return sandbox_server(version, sandbox=make_sandbox(version, text))

    return make
