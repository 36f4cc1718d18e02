"""Every child process a test starts goes through tests/child_procs.py, so the `_children`
fixture reaps it when the test ends (issue 37: a child `zonectl apply --migrate` outlived
its test by 20 minutes). A direct subprocess.Popen/run in a test file is refused here."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
DIRECT = re.compile(r"\bsubprocess\.(Popen|run|call|check_call|check_output)\(")
# child_procs.py is the owner itself.
ALLOWED = {TESTS / "child_procs.py"}


def test_no_test_starts_a_child_process_outside_child_procs() -> None:
    found = [
        f"{path.relative_to(TESTS)}:{n}: {line.strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        if path not in ALLOWED
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DIRECT.search(line)
    ]
    assert not found, "start children with child_procs.popen/run:\n" + "\n".join(found)
