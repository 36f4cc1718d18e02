"""Fixtures for rotate: the firehose cluster seeded per test (a few ms) and served over TCP
(helpers in rotate_kit.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rotate_kit import CLUSTER, Firehose, seeded, tap


@pytest.fixture
def make_firehose(sandbox_server: Callable[..., Any]) -> Iterator[Callable[..., Firehose]]:
    def make(version: str = "7.0", cluster: Path = CLUSTER) -> Firehose:
        sb = seeded(cluster, version)
        handle = sandbox_server(sandbox=sb, client_options={"tz_aware": True})
        fh = Firehose(sb, handle.uri, handle.client)
        tap(sb, fh.sent)
        return fh

    yield make


@pytest.fixture
def firehose(make_firehose: Callable[..., Firehose]) -> Firehose:
    return make_firehose()
