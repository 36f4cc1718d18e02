"""Metrics test setup: the rotate kit's firehose cluster (tests/rotate), seeded per test
and served over TCP, with every dispatched command recorded."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rotate"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rotate_kit import CLUSTER, Firehose, seeded, tap


@pytest.fixture
def make_firehose(sandbox_server: Callable[..., Any]) -> Iterator[Callable[..., Firehose]]:
    def make(version: str = "7.0") -> Firehose:
        sb = seeded(CLUSTER, version)
        handle = sandbox_server(sandbox=sb, client_options={"tz_aware": True})
        fh = Firehose(sb, handle.uri, handle.client)
        tap(sb, fh.sent)
        return fh

    yield make
