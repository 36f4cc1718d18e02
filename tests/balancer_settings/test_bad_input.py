"""Bad settings are policy errors at file:line:col with exit 3 and no traceback, offline
(issue 30, "Bad input"); generated values cover the bounds of the chunk size."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.balancer_settings.kit import cli, policy


def _validate(tmp_path: Path, body: str) -> tuple[int, str]:
    code, out, err = cli("validate", policy(tmp_path, body))
    assert "Traceback" not in out + err
    return code, err


@pytest.mark.parametrize(
    ("body", "where", "says"),
    [
        ("balancer:\n  chunkSizeMB: 0\n", "4:16", "must be at least 1, got 0"),
        ("balancer:\n  chunkSizeMB: 2000\n", "4:16", "must be at most 1024, got 2000"),
        ('balancer:\n  chunkSizeMB: "64MB"\n', "4:16", 'expected an integer, got "64MB"'),
        (
            'balancer:\n  secondaryThrottle: "yes"\n',
            "4:22",
            'expected true or false or {w: ...}, got "yes"',
        ),
        (
            "balancer:\n  secondaryThrottle: {w: majority, wtimeout: -1}\n",
            "4:46",
            "wtimeout: must be at least 0",
        ),
        (
            "balancer:\n  activeWindowDOW:\n    - {day: Funday, start: '1:00', stop: '2:00'}\n",
            "5:13",
            "expected 'Sunday', 'Monday'",
        ),
        (
            "balancer:\n  activeWindowDOW:\n    - {day: Monday, start: '9:00', stop: '09:00'}\n",
            "5:7",
            "ZP502 activeWindowDOW[0] (Monday) starts and stops at",
        ),
        (
            "balancer:\n  activeWindowDOW:\n    - {day: Monday, start: '9.00', stop: '10:00'}\n",
            "5:28",
            'ZP501 activeWindowDOW[0].start "9.00" is not a time of day',
        ),
        ("collections:\n  app.e:\n    chunkSizeMB: 0\n", "5:18", "must be at least 1"),
        ("collections:\n  app.e:\n    defragment: yes\n", "5:17", "expected true or false"),
        ("collections:\n  app.e:\n    autoMerger: 1\n", "5:17", "expected true or false"),
    ],
)
def test_a_bad_setting_is_an_error_at_its_line(
    tmp_path: Path, body: str, where: str, says: str
) -> None:
    code, err = _validate(tmp_path, body)
    assert code == 3, err
    line = next(x for x in err.splitlines() if "error ZP" in x)
    assert f"policy.yaml:{where}: error ZP" in line and says in line, err


@given(size=st.integers(min_value=-(2**40), max_value=2**40))
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_chunk_size_validates_exactly_when_mongodb_accepts_it(tmp_path: Path, size: int) -> None:
    """checkMaxChunkSizeValid: 1 MiB..1 GiB, i.e. 1..1024 MB (reference §2.1)."""
    code, err = _validate(tmp_path, f"balancer:\n  chunkSizeMB: {size}\n")
    assert (code == 0) == (1 <= size <= 1024), err
