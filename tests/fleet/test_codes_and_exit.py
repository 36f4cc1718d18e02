"""The inventory's diagnostic codes are all documented and all used, and a fleet's exit
code is the worst of its clusters' (a failure is never hidden by pending changes)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zonectl.cli.fleet.output import worst_code
from zonectl.inventory.codes import CODES

ROOT = Path(__file__).resolve().parents[2]


def test_every_code_is_documented_and_used_and_no_other_is() -> None:
    docs = set(re.findall(r"\| (ZI\d{3}) \|", (ROOT / "docs" / "fleet.md").read_text()))
    source = "".join(
        p.read_text() for p in (ROOT / "zonectl").rglob("*.py") if p.name != "codes.py"
    )
    used = set(re.findall(r'"(ZI\d{3})"', source))
    assert docs == set(CODES)
    assert used == set(CODES)


@pytest.mark.parametrize(
    ("codes", "worst"),
    [
        ([], 0),
        ([0, 0], 0),
        ([0, 4], 4),
        ([4, 1, 0], 1),
        ([1, 3], 3),
        ([3, 5, 1], 5),
        ([5, 130], 130),
    ],
)
def test_the_run_exits_with_the_worst_cluster_code(codes: list[int], worst: int) -> None:
    assert worst_code(codes) == worst
