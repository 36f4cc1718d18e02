"""Shared fixtures: a sandbox served over TCP with a pymongo client, per version profile.

def test_x(sandbox_server):
    sb = sandbox_server()                  # 7.0 by default; sandbox_server("5.0", auth=...)
    sb.client.admin.command("ping")        # real pymongo over TCP
    sb.sandbox.clock.set(...)              # drive the simulated cluster directly

def test_y(sandbox_server, server_version):  # runs once per profile: 5.0 6.0 7.0 8.0
    sb = sandbox_server(server_version)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymongo
import pytest
from typer.testing import CliRunner

from zonectl.sandbox.launch import serve
from zonectl.sandbox.state import Sandbox
from zonectl.sandbox.wire.server import SandboxServer

VERSIONS = ("5.0", "6.0", "7.0", "8.0")

sys.path.append(str(Path(__file__).resolve().parent))  # cli_output_scan, for the tests too
from child_procs import owning  # noqa: E402
from cli_output_scan import check_result  # noqa: E402

# pytest-timeout's limit holds inside @given tests too (tests/hypothesis_timeout.py).
pytest_plugins = ["hypothesis_timeout"]


# --------------------------------------------------------------------------- child processes
@pytest.fixture(scope="session", autouse=True)
def _session_children() -> Iterator[None]:
    """Children started by session or module fixtures are reaped when the session ends."""
    with owning():
        yield


@pytest.fixture(autouse=True)
def _children() -> Iterator[None]:
    """The one owner of every child process a test starts (tests/child_procs.py: `popen`,
    `run`): when the test ends, passed or failed, each one's whole process group is
    terminated, then killed."""
    with owning():
        yield


@pytest.fixture(scope="session", autouse=True)
def _every_cli_output_is_scanned() -> Iterator[None]:
    """Every in-process run of the CLI in the suite (typer's CliRunner, which every test
    kit uses) has its stdout and stderr checked for a literal `\\n` in zonectl's own
    text (tests/cli_output_scan.py); a finding fails the test that made the run."""
    original = CliRunner.invoke

    def invoke(self: CliRunner, app: Any, args: Any = None, *rest: Any, **kwargs: Any) -> Any:
        result = original(self, app, args, *rest, **kwargs)
        check_result(args, result.stdout, result.stderr)
        return result

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CliRunner, "invoke", invoke)
        yield


# Short timeouts: a sandbox is local, so anything slow is a bug, not the network.
CLIENT_OPTIONS: dict[str, Any] = {
    "serverSelectionTimeoutMS": 5000,
    "connectTimeoutMS": 5000,
    "socketTimeoutMS": 60000,
}


@dataclass
class SandboxHandle:
    sandbox: Sandbox
    server: SandboxServer
    client: pymongo.MongoClient[dict[str, Any]]

    @property
    def uri(self) -> str:
        return self.server.uri

    @property
    def port(self) -> int:
        return int(self.server.port)

    def new_client(self, **options: Any) -> pymongo.MongoClient[dict[str, Any]]:
        """Another client on the same server (closed at teardown), e.g. with credentials."""
        client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
            self.uri, **{**CLIENT_OPTIONS, **options}
        )
        self._extra.append(client)
        return client

    def __post_init__(self) -> None:
        self._extra: list[pymongo.MongoClient[dict[str, Any]]] = []

    def close(self) -> None:
        for client in [*self._extra, self.client]:
            client.close()
        self.server.close()


Factory = Callable[..., SandboxHandle]


def _factory() -> tuple[Factory, list[SandboxHandle]]:
    handles: list[SandboxHandle] = []

    def make(
        version: str = "7.0", *, sandbox: Sandbox | None = None, **kwargs: Any
    ) -> SandboxHandle:
        """A served sandbox; extra kwargs go to `Sandbox(...)` (auth=, clock=) unless a
        ready `sandbox` is passed; `client_options=` go to the MongoClient."""
        client_options = kwargs.pop("client_options", {})
        sb = sandbox if sandbox is not None else Sandbox(version, **kwargs)
        server = serve(sb)
        client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
            server.uri, **{**CLIENT_OPTIONS, **client_options}
        )
        handle = SandboxHandle(sb, server, client)
        handles.append(handle)
        return handle

    return make, handles


@pytest.fixture
def sandbox_server() -> Iterator[Factory]:
    """Factory for sandboxes that live for one test."""
    make, handles = _factory()
    yield make
    for handle in handles:
        handle.close()


@pytest.fixture(scope="module")
def module_sandbox_server() -> Iterator[Factory]:
    """The same factory, but servers live for the whole module (for read-only tests)."""
    make, handles = _factory()
    yield make
    for handle in handles:
        handle.close()


@pytest.fixture(params=VERSIONS)
def server_version(request: pytest.FixtureRequest) -> str:
    """Parametrizes a test over the four server-version profiles."""
    return str(request.param)
