"""Fleet fixtures: a port nothing listens on, a listener that records whether anyone
connected, and an inventory writer (helpers in fleet_kit.py)."""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def closed_port() -> int:
    """A port nothing listens on: connecting is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def tripwire() -> Iterator[Callable[[], bool]]:
    """A listening port; the callable says whether anything connected to it."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    port = sock.getsockname()[1]

    def contacted() -> bool:
        try:
            conn, _ = sock.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True

    contacted.port = port  # type: ignore[attr-defined]
    yield contacted
    sock.close()


@pytest.fixture
def write_inventory(tmp_path: Path) -> Callable[[str], Path]:
    def write(text: str) -> Path:
        path = tmp_path / "clusters.yaml"
        path.write_text(text, encoding="utf-8")
        return path

    return write
