"""`analyze --candidate` values are parsed by the CLI: a bad one is a usage error (exit 2)
that says what was expected and shows an example, never the YAML parser's own text."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.analyze.kit import analyze


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("{sessionId: ", "not valid YAML"),
        ("{a: 1, b: [", "not valid YAML"),
        ("[a]", "not a mapping"),
        ("sessionId", "not a mapping"),
        ("{}", "not a mapping"),
        ("{sessionId: -1}", "field 'sessionId' has -1"),
        ("{sessionId: true}", "field 'sessionId' has True"),
        ("{a: hashed, b: hashed}", "more than one hashed field"),
        # read as the policy reads YAML (ruamel's scanner), not libyaml's, which would call
        # a ':' inside a flow scalar invalid YAML
        ("{x: a:b}", "field 'x' has 'a:b'"),
    ],
)
def test_a_bad_candidate_says_what_was_expected(tmp_path: Path, bad: str, why: str) -> None:
    # A closed port: the value is refused before any connection is tried.
    code, report, err = analyze("mongodb://127.0.0.1:1/", tmp_path, None, "-n", "a.b",
                                "--candidate", bad)  # fmt: skip
    assert code == 2 and report == {}
    assert f"--candidate {bad!r}: {why}" in err
    assert "e.g. --candidate '{sessionId: 1}'" in err
    # The parser's own wording (marks, line/column of a one-line string) is not shown.
    for raw in ("while parsing", "expected ',' or '}'", "line 1, column", "^"):
        assert raw not in err


def test_good_candidates_pass_the_flag_check(tmp_path: Path) -> None:
    # Accepted values get as far as connecting: exit 1 saying the closed port cannot be
    # reached (not exit 2, and not an internal error, which exits 1 as well).
    for good in ("{sessionId: 1}", "{userId: 1, ts: 1}", "{_id: hashed}", '{_id: "hashed"}'):
        code, _, err = analyze("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200", tmp_path,
                               None, "-n", "a.b", "--candidate", good)  # fmt: skip
        assert code == 1, (good, err)
        assert err.startswith("zonectl: error: cannot reach mongodb://127.0.0.1:1/"), (good, err)
        assert "--candidate" not in err and "internal error" not in err, (good, err)
