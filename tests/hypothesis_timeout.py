"""pytest plugin: pytest-timeout's limit also stops a hang inside a Hypothesis test.

pytest-timeout's `signal` method raises pytest's `Failed` from SIGALRM. Hypothesis counts
`Failed` as a failing example, so it shrinks and replays it, and the replay runs with no
timer left: a 3 s limit became 59 s, and a real hang never ended. For tests wrapped by
`@given`, this plugin arms the same timer, dumps the same stacks, then raises
`HypothesisTimeout` instead: a BaseException that is not `Failed`, `Exception`,
`SystemExit` or `GeneratorExit`, which Hypothesis's `failure_exceptions_to_catch()` (6.x,
hypothesis/core.py) therefore lets through at once, and pytest reports as the test's
failure. Other tests keep pytest-timeout's own handler. Loaded from tests/conftest.py;
tests/test_timeout_hypothesis.py proves it with tests that hang on purpose.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

import pytest
import pytest_timeout


class HypothesisTimeout(BaseException):
    """pytest-timeout's limit reached inside a Hypothesis test."""


def _is_hypothesis_test(item: pytest.Item) -> bool:
    # Hypothesis documents `test.hypothesis.inner_test` on every @given wrapper.
    return hasattr(getattr(item, "obj", None), "hypothesis")


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    """Arm SIGALRM like pytest-timeout does, with an exception Hypothesis cannot swallow.
    Returns None (pytest-timeout's own hook then runs) for anything but a `signal` timer
    on the main thread around a Hypothesis test."""
    if (
        settings.method != "signal"
        or threading.current_thread() is not threading.main_thread()
        or not _is_hypothesis_test(item)
    ):
        return None

    def handler(signum: int, frame: Any) -> None:
        __tracebackhide__ = True
        try:
            pytest_timeout.timeout_sigalrm(item, settings)  # dumps the stacks, then fails
        except pytest.fail.Exception as failed:
            raise HypothesisTimeout(str(failed)) from None

    def cancel() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)

    item.cancel_timeout = cancel  # type: ignore[attr-defined]  # pytest-timeout's cancel hook
    signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, settings.timeout)
    return True
