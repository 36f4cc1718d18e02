"""`disk: {limit}` for the cluster and in a shard's long form: a percentage over 0 and at most
100, each problem at its line with a stable code (exit 3), and the limits built into the
DesiredState the capacity guard reads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from zonectl.model.capacity import DEFAULT_LIMIT
from zonectl.policy import load_policy

Run = Callable[..., tuple[int, str, str]]
HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\n"
SHARDS = "shards:\n  s0: [hot]\n  s1: {zones: [hot], disk: {limit: '90%'}}\n"


def _write(workdir: Path, text: str, name: str = "p.yaml") -> None:
    (workdir / name).write_text(HEAD + text)


def test_the_cluster_limit_and_a_shards_own_limit_are_built(workdir: Path) -> None:
    _write(workdir, "disk: {limit: '80%'}\n" + SHARDS)
    desired = load_policy(["p.yaml"]).desired
    assert (desired.limit_of("s0").ratio, desired.limit_of("s0").text) == (0.8, "80%")
    assert (desired.limit_of("s1").ratio, desired.limit_of("s1").text) == (0.9, "90%")
    _write(workdir, "shards:\n  s0: [hot]\n")
    assert load_policy(["p.yaml"]).desired.limit_of("s0") == DEFAULT_LIMIT  # 85 %


def test_a_limit_changes_the_digest(workdir: Path) -> None:
    # (a policy without `disk` keeps its digest: tests/cases' expected plans carry theirs)
    _write(workdir, "shards:\n  s0: [hot]\n")
    plain = load_policy(["p.yaml"]).desired.digest
    _write(workdir, "disk: {limit: '85%'}\nshards:\n  s0: [hot]\n")
    assert load_policy(["p.yaml"]).desired.digest != plain


@pytest.mark.parametrize(
    ("limit", "expected"),
    [
        ("'0%'", 'p.yaml:3:15: error ZP702 disk limit "0%" must be over 0 % and at most 100 %'),
        ("'100.5%'", 'p.yaml:3:15: error ZP702 disk limit "100.5%" must be over 0 % and at '
                     "most 100 %"),
        ("'85'", 'p.yaml:3:15: error ZP701 disk limit "85" is not a percentage'),
        ("'lots'", 'p.yaml:3:15: error ZP701 disk limit "lots" is not a percentage'),
    ],
)  # fmt: skip
def test_a_bad_cluster_limit_is_an_error_at_its_line(
    workdir: Path, zonectl: Run, limit: str, expected: str
) -> None:
    _write(workdir, f"disk: {{limit: {limit}}}\nshards:\n  s0: [hot]\n")
    code, out, err = zonectl("validate", "p.yaml")
    assert (code, out) == (3, "")
    assert err.splitlines()[0] == expected
    assert err.splitlines()[-1] == "zonectl: policy is invalid: 1 error, 0 warnings"


def test_a_bad_shard_limit_is_an_error_at_its_line_and_plan_exits_3(
    workdir: Path, zonectl: Run
) -> None:
    _write(workdir, "shards:\n  s0: {zones: [hot], disk: {limit: '120%'}}\n")
    code, out, err = zonectl("plan", "p.yaml", "--uri", "sandbox:")
    assert (code, out) == (3, "")
    assert err.splitlines()[:2] == [
        'p.yaml:4:36: error ZP702 disk limit "120%" must be over 0 % and at most 100 %',
        '  hint: the default is "85%"; 100 % lets a plan fill the volume to the last byte',
    ]


def test_a_limit_that_is_no_string_is_a_schema_error(workdir: Path, zonectl: Run) -> None:
    _write(workdir, "disk: {limit: 85}\nshards:\n  s0: [hot]\n")
    code, _, err = zonectl("validate", "p.yaml")
    assert code == 3 and "ZP112" in err.splitlines()[0]


def test_the_disk_section_in_two_files_names_both(workdir: Path, zonectl: Run) -> None:
    _write(workdir, "disk: {limit: '80%'}\nshards:\n  s0: [hot]\n", "a.yaml")
    _write(workdir, "disk: {limit: '90%'}\n", "b.yaml")
    code, _, err = zonectl("validate", "a.yaml", "b.yaml")
    assert code == 3
    assert err.splitlines()[:2] == [
        "b.yaml:3:1: error ZP703 the disk section is also defined at a.yaml:3:1",
        "  hint: the disk section belongs to one file; set a shard's own limit in its entry",
    ]
