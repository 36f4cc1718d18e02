"""The suite's time limit stops a hang, in a plain test and inside a Hypothesis test alike.

Runs pytest in a subprocess, with this suite's pyproject.toml settings and tests/conftest.py
loaded as a plugin, on a generated file whose tests hang on purpose under a 2 s limit.
Before tests/hypothesis_timeout.py, Hypothesis caught the timeout and replayed the example
with no timer left, so the @given test below never ended.
"""

from __future__ import annotations

import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import child_procs

REPO = Path(__file__).resolve().parents[2]

HANGING = """
import time

from hypothesis import given, settings, strategies as st


@settings(deadline=None, database=None, derandomize=True)
@given(st.integers())
def test_property_hangs(n):
    time.sleep(3600)


def test_plain_hangs():
    time.sleep(3600)


@settings(deadline=None, database=None, derandomize=True, max_examples=5)
@given(st.integers())
def test_property_after_the_hangs_still_runs(n):
    assert n == n
"""

# Far above the 2 s limit and pytest's start-up on a loaded machine; a hang has no end.
BOUND_S = 120


def test_a_hang_fails_with_a_timeout_in_plain_and_hypothesis_tests(tmp_path: Path) -> None:
    (tmp_path / "test_hanging.py").write_text(HANGING)
    report = tmp_path / "report.xml"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")])}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        str(REPO / "pyproject.toml"),  # timeout_method = signal, as the suite runs
        "--rootdir",
        str(tmp_path),
        "-p",
        "conftest",  # tests/conftest.py, with the plugins it loads
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-o",
        "timeout=2",
        f"--junitxml={report}",
        "test_hanging.py",
    ]
    run = child_procs.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=BOUND_S
    )
    assert run.returncode == 1, run.stdout + run.stderr

    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        failure = case.find("failure")
        outcomes[case.get("name")] = None if failure is None else failure.get("message", "")
    assert set(outcomes) == {
        "test_property_hangs",
        "test_plain_hangs",
        "test_property_after_the_hangs_still_runs",
    }
    assert outcomes["test_property_after_the_hangs_still_runs"] is None
    for name in ("test_property_hangs", "test_plain_hangs"):
        assert "Timeout (>2.0s) from pytest-timeout" in (outcomes[name] or ""), outcomes
