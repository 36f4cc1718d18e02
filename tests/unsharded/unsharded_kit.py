"""Helpers for the unsharded-pin, pattern and collection-window tests: the seeded
three-shard cluster and `ticking`, which drives the frozen sandbox clock (virtual time) so a
5-minute moveCollection passes in milliseconds."""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from collections.abc import Iterator
from typing import Any

from zonectl.sandbox.seed import build
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

T0 = dt.datetime(2026, 11, 20, 10, 0, tzinfo=dt.UTC)

CLUSTER = """
shards:
  - {name: s0, zones: [hot]}
  - {name: s1, zones: [logs]}
  - {name: s2, zones: [logs]}
databases:
  - {name: shop, primary: s0}
  - {name: app, primary: s0}
  - {name: logs, primary: s0}
unsharded:
  - {ns: shop.orders, bytes: 3221225472, docs: 100000}
  - {ns: shop.carts}
  - {ns: shop.report_view, type: view}
  - {ns: shop.metrics, type: timeseries}
  - {ns: shop.eventlog, type: capped}
"""


@contextlib.contextmanager
def ticking(sandbox: Sandbox, step: dt.timedelta = dt.timedelta(seconds=30)) -> Iterator[None]:
    """Advance the frozen sandbox clock by `step` every few real milliseconds meanwhile."""
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(0.002):
            sandbox.clock.advance(step)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def make_sandbox(version: str, text: str = CLUSTER) -> Sandbox:
    sandbox = Sandbox(version)
    sandbox.clock.set(T0)
    build.seed(sandbox, load_cluster_file("cluster.yaml", text), "cluster.yaml")
    return sandbox


PIN_POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
shards:
  s0: [hot]
  s1: [logs]
  s2: [logs]
collections:
  shop.orders: {pin: logs}
"""


def zonectl(*args: str) -> tuple[int, str, str]:
    """Run the CLI in-process; (exit code, stdout, stderr)."""
    from typer.testing import CliRunner

    from zonectl.cli.app import app
    from zonectl.cli.commands import register

    if not app.registered_commands:
        register(app)
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def home_of(client: object, ns: str) -> str | None:
    """Where an unsharded collection lives, read from config as a user would."""
    config = client.config  # type: ignore[attr-defined]
    entry = config.collections.find_one({"_id": ns})
    if entry and entry.get("unsplittable"):
        return str(config.chunks.find_one({"uuid": entry["uuid"]})["shard"])
    db = config.databases.find_one({"_id": ns.split(".", 1)[0]})
    return str(db["primary"]) if db else None


def start_move(handle: Any, ns: str, to: str) -> threading.Thread:
    """Send moveCollection from another client in a thread, and return once the server
    shows the move in flight (config.reshardingOperations)."""
    other = handle.new_client()
    thread = threading.Thread(
        target=lambda: other.admin.command({"moveCollection": ns, "toShard": to}),
        daemon=True,
    )
    thread.start()
    for _ in range(500):
        if handle.client.config.reshardingOperations.count_documents({}):
            break
        threading.Event().wait(0.01)
    return thread
