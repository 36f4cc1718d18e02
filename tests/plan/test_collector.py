"""`zonectl plan` runs with the cyclic collector paused (zonectl.cli.collector) and leaves
it as it found it: off for every command the plan sends (a pymongo listener sees it), on
again after the run, also after a failing run; sections opened by concurrent runs (fleet's
threads) resume it only when the last one ends, and never turn on a collector that was off."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pymongo import monitoring
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.collector import collector_paused
from zonectl.cli.commands import register

FIXTURES = Path(__file__).resolve().parent / "fixtures"
URI = f"sandbox:{FIXTURES / 'cluster.yaml'}"

if not app.registered_commands:
    register(app)


class _Seen(monitoring.CommandListener):
    """Whether the collector was on when each command started (only while `on`)."""

    def __init__(self) -> None:
        self.on = False
        self.enabled: list[bool] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.on:
            self.enabled.append(gc.isenabled())

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


_SEEN = _Seen()
monitoring.register(_SEEN)  # pymongo keeps it for the session; counting only while on


@pytest.fixture
def seen() -> Iterator[_Seen]:
    _SEEN.enabled.clear()
    _SEEN.on = True
    try:
        yield _SEEN
    finally:
        _SEEN.on = False


def test_plan_runs_with_the_collector_off_and_turns_it_back_on(seen: _Seen) -> None:
    assert gc.isenabled()
    result = CliRunner().invoke(app, ["plan", str(FIXTURES / "changes"), "--uri", URI])
    assert result.exit_code == 0, result.stderr
    assert seen.enabled and not any(seen.enabled)
    assert gc.isenabled()


def test_a_failing_plan_turns_it_back_on_too(seen: _Seen) -> None:
    result = CliRunner().invoke(app, ["plan", str(FIXTURES / "changes"), "--uri", "nowhere:x"])
    assert result.exit_code != 0
    assert gc.isenabled()


def test_concurrent_sections_resume_it_when_the_last_ends() -> None:
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    during: list[bool] = []

    def first() -> None:
        with collector_paused():
            first_in.set()
            second_in.wait(10)
        first_out.set()

    def second() -> None:
        first_in.wait(10)
        with collector_paused():
            second_in.set()
            first_out.wait(10)
            during.append(gc.isenabled())  # the first ended: still off, this one is open

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert during == [False]
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
