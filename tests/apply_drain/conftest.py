"""Fixtures for the drain tests (see drain_kit): a seeded sandbox served over TCP."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "apply"))

from drain_kit import CLUSTER, make_sandbox


@pytest.fixture
def served(sandbox_server: Callable[..., Any]) -> Callable[..., Any]:
    """served(version, text) -> a SandboxHandle of the seeded cluster, clock at T0."""

    def make(version: str = "7.0", text: str = CLUSTER) -> Any:
        return sandbox_server(version, sandbox=make_sandbox(version, text))

    return make
