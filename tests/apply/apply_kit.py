"""Helpers for the apply tests: the fixture files, the CLI in-process or in a subprocess, a
tap that arms `failCommand` exactly at the k-th matching command, and the `Cluster` handle
(conftest.py builds one per test). Imported as `apply_kit`, never as `conftest`, so the
tests do not depend on which conftest pytest imported first."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import child_procs
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.state import Sandbox

HERE = Path(__file__).resolve().parent

FIXTURES = HERE / "fixtures"
CLUSTER = FIXTURES / "cluster.yaml"
MATRIX = FIXTURES / "matrix"
MIGRATE = FIXTURES / "migrate"

if not app.registered_commands:
    register(app)


@dataclass
class Result:
    code: int
    out: str
    err: str


def zonectl(*args: str, env: dict[str, str] | None = None) -> Result:
    """The CLI in this process (fast); stdin is not a TTY, as in cron."""
    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    return Result(result.exit_code, result.stdout, result.stderr)


def spawn(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """The CLI in a subprocess, for cases that kill it."""
    return child_procs.popen(
        [sys.executable, str(HERE / "zonectl_main.py"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **(env or {})},
    )


class Lines:
    """A child's stream read on a thread, so a test can wait for a line while the child
    runs (and a child that never prints it cannot block the test)."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._closed = False
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def wait_for(self, text: str, timeout: float) -> bool:
        """Whether a line containing `text` came before the stream ended or `timeout`."""
        with self._changed:
            return self._changed.wait_for(
                lambda: self._closed or any(text in line for line in self.lines), timeout
            ) and any(text in line for line in self.lines)

    def text(self, timeout: float = 60) -> str:
        """Everything, once the stream ended."""
        with self._changed:
            self._changed.wait_for(lambda: self._closed, timeout)
            return "".join(self.lines)


@dataclass
class Tap:
    """Sees every command the sandbox dispatches (via its failCommand evaluation) and arms
    the real `failCommand` point with mode {times: 1} right before the k-th command matching
    (name, namespace): MongoDB's fail point cannot skip N then fire once, so the test does
    what a tester would do with configureFailPoint between two commands."""

    sandbox: Sandbox
    seen: list[tuple[str, str]] = field(default_factory=list)
    target: tuple[str, str, int] | None = None
    data: dict[str, Any] = field(default_factory=dict)
    fired: threading.Event = field(default_factory=threading.Event)
    mode: str = "times"
    hold: bool = False
    released: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        points = self.sandbox.failpoints
        original = points.evaluate

        def evaluate(names: tuple[str, ...], namespace: str, app_name: str) -> Any:
            key = (names[0], namespace)
            self.seen.append(key)
            target = self.target
            if target is not None and key == target[:2] and self.seen.count(key) == target[2]:
                if self.hold:  # this one waits, unchanged, until the test says
                    self.target = None
                    self.fired.set()
                    self.released.wait(120)
                    return original(names, namespace, app_name)
                data = {"failCommands": [names[0]], **self.data}
                points.configure("failCommand", self.mode, 1, data)
                self.target = None
                trip = original(names, namespace, app_name)
                self.fired.set()
                return trip
            return original(names, namespace, app_name)

        points.evaluate = evaluate  # type: ignore[method-assign]

    def arm(self, name: str, namespace: str, nth: int, mode: str = "times", **data: Any) -> None:
        """Fail the nth (1-based, counted from now) `name` command on `namespace`: that one
        only, or it and every later `name` command with mode="alwaysOn"."""
        self.hold = False
        self.mode = mode
        self.seen.clear()
        self.fired.clear()
        self.target = (name, namespace, nth)
        self.data = data

    def hold_until_released(self, name: str, namespace: str, nth: int) -> None:
        """Hold the nth `name` command on `namespace` in the sandbox, before it runs, until
        `release()` (its client waits as for a slow server): what runs meanwhile is the
        test's to decide, however loaded the machine."""
        self.arm(name, namespace, nth)
        self.hold = True
        self.released.clear()

    def release(self) -> None:
        self.released.set()


@dataclass
class Cluster:
    sandbox: Sandbox
    uri: str
    client: Any
    tap: Tap
    handle: Any

    def state(self) -> dict[str, Any]:
        """What the tests compare: zones, ranges, noBalance, balancer settings."""
        c = self.client
        return {
            "shards": {d["_id"]: sorted(d.get("tags", [])) for d in c.config.shards.find()},
            "tags": sorted(
                (d["ns"], str(d["min"]), str(d["max"]), d["tag"]) for d in c.config.tags.find()
            ),
            # The users' collections: not config.system.sessions, which every cluster has.
            "noBalance": {
                d["_id"]: bool(d.get("noBalance", False))
                for d in c.config.collections.find()
                if not d["_id"].startswith("config.")
            },
            "balancer": {
                k: v
                for k, v in (c.config.settings.find_one({"_id": "balancer"}) or {}).items()
                if k != "_id"
            },
        }

    def lease(self) -> Any:
        return self.client.zonectl.locks.find_one({"_id": "apply"})

    def open_journals(self) -> list[Any]:
        return list(self.client.zonectl.journal.find({"type": "apply", "state": "open"}))


Make = Callable[..., Cluster]
