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


# --------------------------------------------------------------------------- xdist scheduling
# Scheduling only: no test is added, skipped or changed. With `-n 2` a long test that starts
# last keeps one worker busy while the other idles, so the known-slow tests go first
# (`--dist loadgroup --no-loadscope-reorder`, pyproject.toml, hands out one unit at a time
# in this order: the longest first, each to the worker free first). Prefixes of node ids,
# slowest first, as `--durations` measured them on two shared cores (2026-11-27, after
# this branch's cuts; under heavier load each takes up to twice as long); a test missing
# here only runs in its usual place.
_PAGE = (
    "tests/readme/test_docs.py::test_every_shell_block_of_the_page_runs_with_the_exit_code_it_shows"
)
_MATRIX = "tests/seams/test_matrix.py::test_every_policy_goes_through_every_command"
SLOW_FIRST = (
    "tests/readme/test_readme.py::test_every_tour_command_runs_in_order",  # 64-158 s
    f"{_PAGE}[fleet.md]",  # 48 s
    f"{_MATRIX}[demo-8.3-",  # 47 s
    f"{_MATRIX}[demo-8.0-",  # 41 s
    "tests/html/test_browser.py",  # 37 s of module set-up, then its tests
    f"{_MATRIX}[demo-7.0-2026-01",  # 35 s
    f"{_PAGE}[shard-lifecycle.md]",  # 24 s
    "tests/completion/test_completion.py::test_bash_completes_commands",  # 22 s
    "tests/fleet/test_fleet_interrupt.py::test_a_cluster_lost_during_the_clean_up",  # 21 s
    "tests/apply/test_every_run_ends.py::test_a_mongos_gone_mid_apply",  # 16 s
    f"{_PAGE}[capacity.md]",  # 13 s
    "tests/html/test_status_page.py::test_thousands_of_zones",  # 12 s
    "tests/output/test_no_literal_newline.py",  # 11 s
    f"{_PAGE}[explain.md]",  # 10 s
    "tests/balancer_settings/test_registered_row.py",  # 8 s
    "tests/secrets_names/test_uri_secrets.py",  # 7 s
    "tests/completion/test_completion.py::test_zsh_completes",  # 7 s
    "tests/secrets_names/test_hostile_names.py",  # 7 s
    "tests/robustness/test_no_internal_error.py",  # 5 s and 4 s
    "tests/reshard/test_status_and_recover.py::test_a_second_resharding",  # 5-14 s
    f"{_PAGE}[twin.md]",  # 6 s
)
_SHARED_SCOPES = ("class", "module", "package")


def _slow_rank(nodeid: str) -> int:
    return next((i for i, p in enumerate(SLOW_FIRST) if nodeid.startswith(p)), len(SLOW_FIRST))


def _shares_fixtures(item: pytest.Item) -> bool:
    """A test using a class-, module- or package-scoped fixture: its module's tests stay on
    one worker (an `xdist_group`), which sets the fixture up once, as without xdist."""
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.values() if info is not None else ()
    return any(d and d[-1].scope in _SHARED_SCOPES for d in defs)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the xdist_group marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Known-slow tests first (a module that shares fixtures moves whole, at its slowest
    test's rank), the rest in pytest's order; a stable sort, the same on every worker."""
    rank: dict[str, int] = {}
    for item in items:
        if _shares_fixtures(item):
            module = item.nodeid.split("::", 1)[0]
            item.add_marker(pytest.mark.xdist_group(module))
            rank[module] = min(rank.get(module, len(SLOW_FIRST)), _slow_rank(item.nodeid))

    def key(item: pytest.Item) -> int:
        module = item.nodeid.split("::", 1)[0]
        return rank[module] if module in rank else _slow_rank(item.nodeid)

    items.sort(key=key)
