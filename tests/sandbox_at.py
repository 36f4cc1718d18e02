"""A sandbox started from a `sandbox:?version=V&now=T` URI and served over TCP, with a real
pymongo client on it: for tests that pin the version and the clock through the URI, as a
user's `--uri` does."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pymongo import MongoClient

from zonectl.sandbox.uri import SandboxHandle, start


@contextmanager
def served_at(version: str, now: str) -> Iterator[tuple[SandboxHandle, MongoClient[Any]]]:
    with start(f"sandbox:?version={version}&now={now}") as handle:
        client: MongoClient[Any] = MongoClient(handle.uri, serverSelectionTimeoutMS=5000)
        try:
            yield handle, client
        finally:
            client.close()
