"""ZP143: a `collections:` entry that names nothing to manage is a warning at its key (the
plan leaves the namespace alone), never an error: validate exits 0."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

Run = Callable[..., tuple[int, str, str]]
HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards: {s0: [hot]}\ncollections:\n"


@pytest.mark.parametrize(
    "entry",
    [
        "  app.x: {}\n",
        "  app.x: {migrate: eager}\n",
        "  app.x: {reshard: true, migrate: reshard}\n",
        "  app.x: {balancing: null, sampling: null}\n",
    ],
)
def test_an_entry_that_manages_nothing_is_warned_at_its_key(
    workdir: Path, zonectl: Run, entry: str
) -> None:
    (workdir / "p.yaml").write_text(HEAD + entry)
    code, out, err = zonectl("validate", "p.yaml")
    assert (code, out) == (0, "")
    assert err.startswith(
        "p.yaml:5:3: warning ZP143 app.x manages nothing: plan leaves its ranges, key and "
        "settings alone\n  hint: name what zonectl should manage"
    )
    assert err.endswith("0 errors, 1 warning\n")


@pytest.mark.parametrize(
    "entry",
    [
        "  app.x: {ranges: []}\n",
        "  app.x: {key: {a: 1}}\n",
        "  app.x: {balancing: false}\n",
        "  app.x: {sampling: off}\n",
        "  app.x: {pin: hot, migrate: eager}\n",
    ],
)
def test_an_entry_that_names_one_aspect_is_not_warned(
    workdir: Path, zonectl: Run, entry: str
) -> None:
    (workdir / "p.yaml").write_text(HEAD + entry)
    code, _, err = zonectl("validate", "p.yaml")
    assert code == 0 and "ZP143" not in err and "0 warnings" in err
