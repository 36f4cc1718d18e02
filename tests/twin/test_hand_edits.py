"""Any hand edit that breaks a collection's coverage (a chunk line deleted or repeated, a
bound moved up or down) is refused with exit 3 and the chunk named, by every command that
serves the twin; the unedited twin serves."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
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
@example(edit=("delete", 0))  # the first chunk: the named one is what is now first
@example(edit=("repeat", 0))
@example(edit=("max+", 0))
@example(edit=("max-", CHUNKS - 2))  # the last chunk's start moves
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
    named, why = _named(kind, i)
    assert f"t.chunks.jsonl: app.e chunk {named} " in res.output, (edit, res.output)
    assert why in res.output, (edit, res.output)


def _named(kind: str, i: int) -> tuple[int, str]:
    """The chunk (index after the edit) the error must name, and why. Chunk i ends where
    chunk i + 1 starts: the first chunk whose start no longer meets the end before it is
    the one named; with the first chunk deleted, what is now first does not start at
    MinKey."""
    if kind == "delete":
        return (0, "a gap below it") if i == 0 else (i, "leaves a gap after the chunk before")
    if kind == "repeat":  # the copy, right after its original: the same min
        return i + 1, "min is not above the chunk before it: chunks overlap"
    if kind == "max+":
        return i + 1, "overlaps the chunk before it"
    return i + 1, "leaves a gap after the chunk before it"


def test_the_unedited_twin_serves(captured: tuple[Path, str]) -> None:
    source, _ = captured
    assert run("status", "--uri", f"sandbox:{source / 't.yaml'}").exit_code == 0
