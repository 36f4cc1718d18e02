"""Helpers for the resharding tests: start a command in another client's thread and return
once the server shows it in flight (config.reshardingOperations), as an operator would see it."""

from __future__ import annotations

import threading
from typing import Any

from pymongo.errors import OperationFailure


class Background:
    """A command sent from another client in a thread; `.error` holds its failure."""

    def __init__(self, handle: Any, command: dict[str, Any]) -> None:
        self.error: OperationFailure | None = None
        client = handle.new_client()

        def run() -> None:
            try:
                client.admin.command(command)
            except OperationFailure as exc:
                self.error = exc

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        for _ in range(1000):
            if handle.client.config.reshardingOperations.count_documents({}):
                break
            threading.Event().wait(0.005)

    def join(self) -> None:
        self.thread.join(timeout=60)
        assert not self.thread.is_alive()


def code_of(exc: Any) -> str:
    return str((exc.details or {}).get("codeName"))


def zonectl(*args: str) -> tuple[int, str, str]:
    """Run the CLI in-process; (exit code, stdout, stderr)."""
    from typer.testing import CliRunner

    from zonectl.cli.app import app
    from zonectl.cli.commands import register

    if not app.registered_commands:
        register(app)
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def policy(tmp_path: Any, body: str) -> str:
    """A policy file for `db.foo` with shards s0..s2 (s2 in zone eu)."""
    path = tmp_path / "policy.yaml"
    path.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: []\n  s1: []\n  s2: [eu]\n"
        "collections:\n  db.foo:\n" + body
    )
    return str(path)
