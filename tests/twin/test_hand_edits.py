"""Any hand edit that breaks a collection's coverage (a chunk line deleted or repeated, a
bound moved up or down) is refused with exit 3 and the chunk named, by every command that
serves the twin; the unedited twin serves."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twin_util import SLOW, run

from zonectl.sandbox import uri as sandbox_uri

FIRST_CHUNK_LINE = 2  # after the header and the collection record
CHUNKS = 24


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("twin")
    (tmp / "cluster.yaml").write_text(SLOW)
    with sandbox_uri.start(f"sandbox:{tmp / 'cluster.yaml'}") as handle:
        assert run("twin", "--uri", handle.uri, "-o", str(tmp / "t.yaml"), "--jsonl").exit_code == 0
    return tmp, (tmp / "t.chunks.jsonl").read_text()


EDITS = st.tuples(st.sampled_from(["delete", "repeat", "max+", "max-"]), st.integers(0, CHUNKS - 2))


@settings(max_examples=10, deadline=None)
@given(edit=EDITS)
def test_a_broken_chunk_list_is_refused_with_the_chunk_named(
    captured: tuple[Path, str], edit: tuple[str, int]
) -> None:
    source, text = captured
    kind, i = edit
    lines = text.splitlines()
    at = FIRST_CHUNK_LINE + i
    if kind == "delete":
        del lines[at]
    elif kind == "repeat":
        lines.insert(at, lines[at])
    else:  # chunk i ends at x = 100 * (i + 1); move that end 50 up or down
        end = f'"$numberInt": "{100 * (i + 1)}"}}}}, "shard"'
        moved = f'"$numberInt": "{100 * (i + 1) + (50 if kind == "max+" else -50)}"}}}}, "shard"'
        assert end in lines[at]
        lines[at] = lines[at].replace(end, moved)
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(source / "t.yaml", Path(tmp) / "t.yaml")
        (Path(tmp) / "t.chunks.jsonl").write_text("\n".join(lines) + "\n")
        res = run("status", "--uri", f"sandbox:{Path(tmp) / 't.yaml'}")
    assert res.exit_code == 3, (edit, res.output)
    assert "t.chunks.jsonl: app.e chunk " in res.output


def test_the_unedited_twin_serves(captured: tuple[Path, str]) -> None:
    source, _ = captured
    assert run("status", "--uri", f"sandbox:{source / 't.yaml'}").exit_code == 0
