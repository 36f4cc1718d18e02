"""Planner/render test setup: the `--regen-golden` flag and the builders' import path.

Regenerate golden outputs with `pytest tests/plan --regen-golden` (the option is
registered by this conftest, so name this directory on the command line).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen-golden",
        action="store_true",
        default=False,
        help="rewrite tests/cases/*/expected.* from the current output instead of comparing",
    )


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--regen-golden", default=False))
