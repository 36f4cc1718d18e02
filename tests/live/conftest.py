"""The live test kit's target: the mongos named by $ZONECTL_TEST_URI, or, when it is unset
(the normal suite, CI), an in-process sandbox, so the same tests run everywhere.

Every test works in its own scratch databases and zones (`live_kit.Scratch`) and removes
them afterwards, so the kit can run against a shared staging cluster.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymongo
import pytest

sys.path.append(str(Path(__file__).parent))  # after the others: `conftest` stays theirs
from live_kit import LiveTarget, Scratch


@pytest.fixture(scope="session")
def live_target() -> Iterator[LiveTarget]:
    uri = os.environ.get("ZONECTL_TEST_URI") or ""
    handle: Any = None
    sandbox = None
    if not uri or uri.startswith("sandbox:"):
        # One sandbox for the session, served over TCP: the CLI reaches it by plain URI.
        from zonectl.sandbox.uri import start

        handle = start(uri or "sandbox:")
        uri, sandbox = handle.uri, handle.sandbox
    client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
        uri, serverSelectionTimeoutMS=10_000, tz_aware=True
    )
    try:
        yield LiveTarget(uri=uri, client=client, sandbox=sandbox)
    finally:
        client.close()
        if handle is not None:
            handle.close()


@pytest.fixture
def scratch(live_target: LiveTarget) -> Iterator[Scratch]:
    s = Scratch.create(live_target)
    try:
        yield s
    finally:
        s.remove()
